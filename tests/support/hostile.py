"""Hostile webhook receivers and slow clients on loopback sockets, for tests and benchmarks.

`HostileReceiver(kind)` listens on a free loopback port and meets every connection the same
way: it reads the request head and body, then

    hang       answers nothing, holds the connection until stopped
    drip       answers a 200 whose head is sent one byte every `interval` seconds
    gigabyte   answers 200 with a 1 GiB body, sent as fast as the client takes it
    redirect   answers 307 to its own `/followed` path (a request there is recorded)
    reset      closes with a TCP reset (SO_LINGER 0) instead of an answer
    long_head  answers a 200 whose headers never end (a 4 KiB header line after another)
    ok         (the control, not hostile) answers 200 with no body at once

Everything runs on plain sockets in daemon threads, and every wait is bounded (`LONGEST`), so
a forgotten receiver ends on its own. `sent` counts the bytes the kernel accepted from it, which
is how a test tells whether the sender read a body or stopped early; `ended` counts the
connections it is done with, so a test can wait until `sent` no longer moves.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from types import TracebackType

KINDS = ("hang", "drip", "gigabyte", "redirect", "reset", "long_head")
CONTROL = "ok"  # not hostile: answers 200 at once, to tell what deliveries cost by themselves
GIB = 1024**3
LONGEST = 60.0  # seconds a connection may be held, whatever the kind
CHUNK = 64 * 1024
DRIP_ANSWER = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Padding: "
    + b"." * 200
    + b"\r\nContent-Length: 2\r\n\r\nok"
)


class HostileReceiver:
    """A loopback receiver behaving as `kind` to every request; a `with` block runs it."""

    def __init__(self, kind: str, *, interval: float = 1.0) -> None:
        if kind not in (*KINDS, CONTROL):
            raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
        self.kind = kind
        self.interval = interval  # seconds between two bytes of a drip
        self.requests = 0  # request heads read
        self.followed = 0  # requests to the redirect's target
        self.sent = 0  # bytes of answers the kernel took
        self.ended = 0  # connections served to their end (answered, cut, or given up on)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        self._listener.settimeout(0.1)
        self.port: int = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def __enter__(self) -> HostileReceiver:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._listener.close()

    def wait_for(self, requests: int, timeout: float = 10.0) -> None:
        """Return once `requests` request heads have arrived; AssertionError after `timeout`."""
        deadline = time.monotonic() + timeout
        while self.requests < requests:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.requests} of {requests} requests arrived")
            time.sleep(0.01)

    def wait_ended(self, connections: int, timeout: float = 30.0) -> None:
        """Return once `connections` connections have ended on this side, so `sent` is final
        for them; AssertionError after `timeout`."""
        deadline = time.monotonic() + timeout
        while self.ended < connections:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.ended} of {connections} connections ended")
            time.sleep(0.01)

    # -- the server ----------------------------------------------------------------------

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(LONGEST)
            try:
                path = _read_request(conn)
                with self._lock:
                    if path == "/followed":
                        self.followed += 1
                    else:
                        self.requests += 1
                getattr(self, f"_{self.kind}")(conn)
            except OSError:  # the sender gave up: what a hostile receiver wants
                pass
        with self._lock:
            self.ended += 1

    def _send(self, conn: socket.socket, data: bytes) -> None:
        conn.sendall(data)
        with self._lock:
            self.sent += len(data)

    def _ok(self, conn: socket.socket) -> None:
        self._send(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    def _hang(self, conn: socket.socket) -> None:
        self._stop.wait(LONGEST)

    def _drip(self, conn: socket.socket) -> None:
        for index in range(len(DRIP_ANSWER)):
            if self._stop.wait(self.interval):
                return
            self._send(conn, DRIP_ANSWER[index : index + 1])

    def _gigabyte(self, conn: socket.socket) -> None:
        self._send(conn, f"HTTP/1.1 200 OK\r\nContent-Length: {GIB}\r\n\r\n".encode())
        chunk = b"x" * CHUNK
        for _ in range(GIB // CHUNK):
            if self._stop.is_set():
                return
            self._send(conn, chunk)  # raises once the sender has closed the connection

    def _redirect(self, conn: socket.socket) -> None:
        target = f"http://127.0.0.1:{self.port}/followed"
        self._send(
            conn,
            f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}\r\n"
            "Content-Length: 0\r\n\r\n".encode(),
        )
        self._stop.wait(0.5)  # let the client read it before the close

    def _reset(self, conn: socket.socket) -> None:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def _long_head(self, conn: socket.socket) -> None:
        self._send(conn, b"HTTP/1.1 200 OK\r\n")
        line = b"X-More: " + b"a" * 4096 + b"\r\n"
        while not self._stop.is_set() and self.sent < 64 * 1024 * 1024:
            self._send(conn, line)


def _read_request(conn: socket.socket) -> str:
    """Read one request (head, then Content-Length bytes of body); its path."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(CHUNK)
        if not more:
            raise ConnectionResetError("closed before the head ended")
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        more = conn.recv(CHUNK)
        if not more:
            break
        body += more
    return lines[0].split(b" ")[1].decode()


class SlowClient:
    """A client that sends a request head one byte every `interval` seconds; `sent` counts the
    bytes sent so far, `closed_after` is how long the server kept the connection before
    closing it (None while open)."""

    def __init__(self, host: str, port: int, *, interval: float = 1.0) -> None:
        self.address = (host, port)
        self.interval = interval
        self.sent = 0
        self.closed_after: float | None = None
        self.answer = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drip, daemon=True)

    def __enter__(self) -> SlowClient:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(5)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def wait_sent(self, count: int, timeout: float = 30.0) -> None:
        """Return once `count` bytes of the head are sent; AssertionError after `timeout`."""
        deadline = time.monotonic() + timeout
        while self.sent < count:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise AssertionError(f"{self.sent} of {count} bytes sent")
            time.sleep(0.01)

    def _drip(self) -> None:
        head = b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 10_000
        started = time.monotonic()
        with socket.create_connection(self.address, timeout=LONGEST) as sock:
            sock.settimeout(0)
            for index in range(len(head)):
                if self._stop.wait(self.interval):
                    return
                try:
                    self.sent += sock.send(head[index : index + 1])
                    got = sock.recv(CHUNK)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    break
                if not got:
                    break
                self.answer += got
            self.closed_after = time.monotonic() - started
            with contextlib.suppress(OSError):
                self.answer += sock.recv(CHUNK)


def idle_connections(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` connections that send nothing (the caller closes them)."""
    return [socket.create_connection((host, port), timeout=10) for _ in range(count)]
