"""A scriptable webhook receiver on a free loopback port, in a background thread.

Tests register its `url` as an endpoint and tell it how to answer the next requests: a status
code, `HOLD` (block until `release()`, then answer), or `HANG` (block until the receiver stops,
so the sender times out). Every request is recorded when it arrives, before it is answered, so
a test can see that an attempt is in flight. Nothing here waits without a bound.
"""

from __future__ import annotations

import atexit
import socket
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOLD = "hold"
HANG = "hang"
Behaviour = int | str

LONGEST_BLOCK = 30.0  # seconds a held or hung request may block, so a forgotten one ends


@dataclass(frozen=True, slots=True)
class Received:
    """One request as it arrived."""

    path: str
    headers: dict[str, str]  # names lowercased
    body: bytes


class WebhookReceiver:
    """`start()` / `stop()` (or a `with` block); answers 200 unless `respond(...)` says more."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.received: list[Received] = []
        self._script: deque[Behaviour] = deque()
        self.default: Behaviour = 200
        self._lock = threading.Condition()
        self._released: int | None = None  # status to answer held requests with, once released
        self._stopping = threading.Event()
        self._server = _Server((host, port), self._handler_class())
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/hooks"

    def respond(self, *behaviours: Behaviour, then: Behaviour | None = None) -> None:
        """Answer the next requests with `behaviours` in turn, then with `then` (if given)."""
        with self._lock:
            self._script.extend(behaviours)
            if HOLD in behaviours or then == HOLD:
                self._released = None
            if then is not None:
                self.default = then

    def release(self, status: int = 200) -> None:
        """Let held requests go, answering `status`."""
        with self._lock:
            self._released = status
            self._lock.notify_all()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The requests received, once there are at least `count` (AssertionError after
        `timeout` seconds)."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.received) >= count, timeout):
                raise AssertionError(
                    f"the receiver got {len(self.received)} request(s), expected {count}"
                )
            return list(self.received)

    def start(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> WebhookReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, received: Received) -> Behaviour:
        with self._lock:
            self.received.append(received)
            self._lock.notify_all()
            return self._script.popleft() if self._script else self.default

    def _block(self, behaviour: Behaviour) -> int | None:
        """Wait as told; the status to answer, or None to drop the connection unanswered."""
        if behaviour == HANG:
            self._stopping.wait(LONGEST_BLOCK)
            return None
        with self._lock:
            self._lock.wait_for(lambda: self._released is not None, LONGEST_BLOCK)
            return self._released

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                behaviour = receiver._next(Received(self.path, headers, body))
                status = receiver._block(behaviour) if isinstance(behaviour, str) else behaviour
                if status is None:
                    self.close_connection = True
                    return
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: tests read `received`

        return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default 5 resets connections when many attempts arrive at once


# The sockets that hold `closed_port`'s ports, by (host, port); closed when the process exits.
_held: dict[tuple[str, int], socket.socket] = {}


def closed_port(host: str = "127.0.0.1") -> int:
    """A loopback port nothing listens on, for connection-refused tests: a socket of this
    process stays bound to it, not listening, until the process exits or `release_port`. A
    connection to it is refused, and no other socket can take the port and answer in its
    place (a port released at once could be bound by the next server or receiver of any
    process, whose script the refused deliveries would then use up)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((host, 0))
    port: int = sock.getsockname()[1]
    _held[host, port] = sock
    return port


def release_port(port: int, host: str = "127.0.0.1") -> None:
    """Let go of a port `closed_port` gave, for a test that brings a receiver up on it."""
    sock = _held.pop((host, port), None)
    if sock is not None:
        sock.close()


@atexit.register
def _release_all() -> None:
    for sock in _held.values():
        sock.close()
    _held.clear()
