"""Slow, idle and oversized clients: each costs one connection a bounded time and memory.

uvicorn bounds a keep-alive connection's idle time after a response (`timeout_keep_alive`),
but nothing else: a new connection that sends nothing, or a request head sent a byte a second,
is kept for ever, and its httptools protocol keeps every header line it is sent. Enough of
them and the server runs out of file descriptors or memory, and others go unserved.
`guarded_protocol` wraps uvicorn's HTTP protocol so that each connection:

- sends a whole request head within `head_timeout` seconds, counted from the connection or
  from the first byte after the previous response (else 408, or a plain close if nothing came);
- sends a head of at most `head_max` bytes, however they are split into reads (else 431 and
  a close): the parser is never fed more of a head than the cap leaves room for;
- is registered in `core.connections` while open, so that a scenario's transport fault can
  break it;
- counts against `max_connections`: past it, the connection idle (between requests) the
  longest is closed to make room; else the one whose request body has been arriving the
  longest (its client is the slow one: a thousand requests stalled in their bodies must not
  lock new clients out); else the new one, when every other is being answered.

A request whose head arrives in one read, the usual case, arms no timer. Once the head is in,
the app reads the body (1 MiB at most), each part of it within the app's body timeout
(`web/middleware/body_timeout.py`); uvicorn's `limit_concurrency` is not used, since it
answers 503 to everyone once idle connections fill it.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from mockserver.core import connections

HEAD_TIMEOUT = 10.0  # seconds to send a whole request head
HEAD_MAX = 64 * 1024  # bytes of a request head: request line and headers
MAX_CONNECTIONS = 1_000  # open connections; the longest-idle one makes room past it
KEEP_ALIVE = 5  # seconds an idle keep-alive connection is kept (uvicorn's timeout_keep_alive)
BACKLOG = 2_048  # connections the kernel queues before they are accepted


def plain_answer(status: str, text: str) -> bytes:
    """A short text/plain answer that closes the connection (the app never saw the request)."""
    body = text.encode() + b"\n"
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


def uvicorn_limits() -> dict[str, Any]:
    """uvicorn's own settings that go with the guard (see `serving.server`)."""
    return {
        "timeout_keep_alive": KEEP_ALIVE,
        "backlog": BACKLOG,
        "h11_max_incomplete_event_size": HEAD_MAX,  # the h11 protocol's own head cap
    }


def guarded_protocol(
    base: type[asyncio.Protocol],
    *,
    head_timeout: float = HEAD_TIMEOUT,
    head_max: int = HEAD_MAX,
    max_connections: int = MAX_CONNECTIONS,
) -> type[asyncio.Protocol]:
    """A subclass of uvicorn's HTTP protocol `base` (httptools or h11, or one derived from them)
    that holds each connection to the limits above; one class per server, since the idle
    connections it may close are tracked on the class."""

    late = plain_answer("408 Request Timeout", f"The request head took over {head_timeout:g} s.")
    too_large = plain_answer(
        "431 Request Header Fields Too Large", f"The request head is over {head_max} bytes."
    )

    # Connections between requests, longest idle first (a dict as an ordered set). The methods
    # use it by this name rather than as `self.idle`: a class attribute read through an
    # instance is a slow lookup, and they run on every request.
    idle: dict[Any, None] = {}
    # Connections in a request whose body is still arriving, longest first.
    arriving: dict[Any, None] = {}

    class GuardedProtocol(base):  # type: ignore[valid-type, misc]
        idle: ClassVar[dict[Any, None]]  # the same dicts, for a reader of the class
        arriving: ClassVar[dict[Any, None]]

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            # Found again by a request's addresses, for a scenario's transport fault.
            self._key, self._connection = connections.register(transport)
            self._head_bytes = 0
            self._head_timer: asyncio.TimerHandle | None = None
            self._arm()
            idle[self] = None
            if len(self.connections) > max_connections:
                oldest = next(iter(idle))  # self when no other is idle
                if oldest is self and arriving:
                    oldest = next(iter(arriving))
                oldest._close()

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            # In a request while its answer is under way or its body still arrives (an early
            # answer, a 413 say, leaves the rest of the body to come): none of it is a head.
            if cycle is not None and (not cycle.response_complete or cycle.more_body):
                base.data_received(self, data)
                cycle = self.cycle
                if cycle is not None and not cycle.more_body:
                    arriving.pop(self, None)
                    if cycle.response_complete:
                        self._between_requests()
                return
            room = head_max - self._head_bytes
            if len(data) > room:
                self._past_the_cap(data, room)
                return
            self._head_bytes += len(data)
            base.data_received(self, data)
            if self._in_request():
                self._head_in()
            elif self.transport.is_closing():
                return
            elif self._head_timer is None:
                self._arm()

        def _past_the_cap(self, data: bytes, room: int) -> None:
            """`data` holds more than the head may still take: the parser gets only what
            fits, so a head over the cap is refused however its bytes were split into reads
            (a whole head of 70 KB in one read included); what follows a head that fits (its
            body, say) is handled as ever."""
            if room > 0:  # never an empty feed: to h11 that means the client has gone
                self._head_bytes = head_max
                base.data_received(self, data[:room])
                if self._in_request():
                    self._head_in()
                    self.data_received(data[room:])
                    return
                if self.transport.is_closing() or self.transport.get_protocol() is not self:
                    return  # answered (a malformed head), or upgraded to a WebSocket
            self._close(too_large)

        def _head_in(self) -> None:
            self._head_bytes = 0
            if self._head_timer is not None:
                self._disarm()
            idle.pop(self, None)
            if self.cycle.more_body:
                arriving[self] = None

        def on_response_complete(self) -> None:
            # Once per request, so uvicorn's own called directly rather than through super(),
            # and `_between_requests` inlined: between requests now (uvicorn's keep-alive timer
            # runs), unless the body's end is still to come and makes it so.
            base.on_response_complete(self)  # type: ignore[attr-defined]
            if not self.cycle.more_body and not self.transport.is_closing():
                idle[self] = None

        def _between_requests(self) -> None:
            if not self.transport.is_closing():
                idle[self] = None  # uvicorn's keep-alive timer runs now

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            idle.pop(self, None)
            arriving.pop(self, None)
            connections.unregister(self._key)
            super().connection_lost(exc)
            self._connection.lost()

        def _in_request(self) -> bool:
            cycle = self.cycle
            return cycle is not None and (not cycle.response_complete or cycle.more_body)

        def _arm(self) -> None:
            self._head_timer = self.loop.call_later(head_timeout, self._late)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _late(self) -> None:
            self._head_timer = None
            if not self._in_request():
                self._close(late if self._head_bytes else b"")

        def _close(self, answer: bytes = b"") -> None:
            self._disarm()
            idle.pop(self, None)
            arriving.pop(self, None)
            if not self.transport.is_closing():
                if answer:
                    self.transport.write(answer)
                self.transport.close()

    GuardedProtocol.idle = idle
    GuardedProtocol.arriving = arriving
    return GuardedProtocol
