"""A real uvicorn server on a free loopback port, in a background thread.

Tests and the pytest plugin use it to talk to the mock over a real socket. The socket is bound
before the thread starts, so the port is known at once and never raced for. With `tls=True` it
serves HTTPS only, with a throwaway CA whose bundle is at `ca_bundle`. With `lifespan=True` the
app's lifespan runs as under `mockserver run` (its webhook client, the real-clock ticker).
"""

from __future__ import annotations

import socket
import ssl
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.applications import Starlette

from mockserver.serving.asgi import ASGIApp
from mockserver.serving.certs import TlsFiles, make_test_certs
from mockserver.serving.server import protocol_options, server


class LiveServer:
    """Start with `start()`, stop with `stop()`; `base_url` is `http(s)://127.0.0.1:PORT`."""

    def __init__(
        self, app: Starlette, host: str = "127.0.0.1", *, tls: bool = False, lifespan: bool = False
    ) -> None:
        self.app = app
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self.host, self.port = self._sock.getsockname()[:2]
        self._tls_dir: tempfile.TemporaryDirectory[str] | None = None
        self.tls: TlsFiles | None = None
        if tls:
            self._tls_dir = tempfile.TemporaryDirectory(prefix="mockserver-tls-")
            self.tls = make_test_certs(Path(self._tls_dir.name))
        served: ASGIApp = app
        options = protocol_options(self.tls)  # as `mockserver run` serves
        self._server = server(
            served, options, log_level="warning", lifespan="on" if lifespan else "off"
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    @property
    def base_url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{self.host}:{self.port}"

    @property
    def ca_bundle(self) -> Path | None:
        """The PEM CA bundle a client must trust to reach a `tls=True` server (else None)."""
        return self.tls.ca_bundle if self.tls else None

    def client_context(self) -> ssl.SSLContext:
        """An SSLContext trusting `ca_bundle`, for httpx's `verify=` (TLS servers only)."""
        if self.tls is None:
            raise ValueError("this live server does not use TLS")
        return self.tls.client_context()

    def start(self, timeout: float = 10.0) -> LiveServer:
        """Run the server thread and return once it accepts connections."""
        self._thread.start()
        pause = threading.Event()
        # uvicorn tells that it has started by a flag only: looked at every millisecond, since
        # starting takes about ten (a coarser look would often wait longer than the start).
        for _ in range(int(timeout / 0.001)):
            if self._server.started or not self._thread.is_alive():
                break
            pause.wait(0.001)
        if not self._server.started:
            raise RuntimeError("the live mock server did not start")
        return self

    def stop(self, *, wait: bool = True) -> None:
        """Stop serving, and wait until the server thread has ended (a few milliseconds once
        the requests being answered are done). With `wait=False` this returns at once, and a
        later `stop()` waits. Wait before the process ends: a server thread still running
        then can crash the interpreter."""
        self._server.stop()
        if not wait:
            return
        self._thread.join(timeout=10)
        self._sock.close()
        if self._tls_dir is not None:
            self._tls_dir.cleanup()
