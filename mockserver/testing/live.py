"""A real uvicorn server on a free loopback port, in a background thread.

Tests and the pytest plugin use it to talk to the mock over a real socket. The socket is bound
before the thread starts, so the port is known at once and never raced for.
"""

from __future__ import annotations

import socket
import threading

import uvicorn
from starlette.applications import Starlette


class LiveServer:
    """Start with `start()`, stop with `stop()`; `base_url` is `http://127.0.0.1:PORT`."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1") -> None:
        self.app = app
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self.host, self.port = self._sock.getsockname()[:2]
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> LiveServer:
        """Run the server thread and return once it accepts connections."""
        self._thread.start()
        pause = threading.Event()
        for _ in range(int(timeout / 0.01)):
            if self._server.started or not self._thread.is_alive():
                break
            pause.wait(0.01)
        if not self._server.started:
            raise RuntimeError("the live mock server did not start")
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
