"""The listening sockets of `mockserver run`, bound before anything else is built, and the
signals that stop it.

Binding first means a port that cannot be had (taken, not an address of this machine, a
privileged port) fails at once, before a seed is loaded, and the start-up line can name the port
the system chose for `--port 0`. The sockets are handed to uvicorn, which listens on them once
the app has started.

SIGTERM (a service manager, a container runtime) and SIGINT (Ctrl-C) stop the server cleanly
with exit status 0: while uvicorn serves, it takes them itself, finishes what it is answering
and runs the app's shutdown (a durable sandbox makes its log durable there), then gives the
signal back to the handler installed here, which ends the run normally; before it serves
(a seed still loading), the handler ends the run at once.
"""

from __future__ import annotations

import contextlib
import signal
import socket
from collections.abc import Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address `host` resolves to, all on one port (the one the
    system chose for the first when `port` is 0), not yet listening; OSError when one cannot
    be bound (what asyncio's `create_server` does, split in two)."""
    found = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
    )
    sockets: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _name, address in found:
            if (family, address[0]) in seen:
                continue
            seen.add((family, address[0]))
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:  # a family this system does not have (IPv6 turned off): skipped
                continue
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(sockets) > 1:  # the others on the port the first was given
                address = (address[0], sockets[0].getsockname()[1], *address[2:])
            sock.bind(address)
        if not sockets:
            raise OSError(f"no address of {host} can be listened on")
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def shown(sock: socket.socket) -> str:
    """A bound socket's address as `127.0.0.1:8080` or `[::1]:8080`."""
    host, port = sock.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class StopSignals:
    """What SIGTERM and SIGINT do to `mockserver run` (see the module): `serving` says whether
    uvicorn has them; `requested` is the first one received, if any."""

    def __init__(self) -> None:
        self.serving = False
        self.requested: int | None = None

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        if self.requested is None:
            self.requested = signum
        if not self.serving:
            raise SystemExit(0)


@contextlib.contextmanager
def stop_signals() -> Iterator[StopSignals]:
    """Stop cleanly, with status 0, on SIGTERM and SIGINT while the block runs (in the main
    thread; elsewhere nothing changes); the earlier handlers are back after it."""
    stop = StopSignals()
    earlier = {}
    try:
        for signum in STOP_SIGNALS:
            earlier[signum] = signal.signal(signum, stop)
    except ValueError:  # not the main thread: signals are not ours to take
        pass
    try:
        yield stop
    finally:
        for signum, handler in earlier.items():
            signal.signal(signum, handler)
