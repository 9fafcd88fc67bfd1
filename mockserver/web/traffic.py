"""The ASGI side of the engine's traffic rules (`engine/traffic.py`): reading a keyed POST's
body for its idempotency decision, answering a kept response again, and keeping what a request
that holds its key answers.

`claim` handles a POST with an `Idempotency-Key`: it holds the key, reads the body (so the
engine can fingerprint it), then either refuses the request (409), answers a kept response
again (`Replay`), or lets it run (`Ticket`), which hands the buffered body to the app and keeps
the response it sends.
"""

from __future__ import annotations

from typing import NamedTuple

from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive, Scope

from mockserver.domain.auth import Principal
from mockserver.engine.calls import MAX_BODY, Headers
from mockserver.engine.traffic import Hold, Traffic
from mockserver.web.context import RequestContext
from mockserver.web.headers import first_header

StoredResponse = bytes  # see `pack_response`
REPLAYED = (b"idempotent-replayed", b"true")


async def claim(
    traffic: Traffic,
    scope: Scope,
    receive: Receive,
    context: RequestContext,
    principal: Principal,
    keys: list[str],
) -> Ticket | Replay | None:
    """Refuse (400 for a bad key, 409), replay, or let the request run holding its key
    (None: run it as if it had no key, because its body is over the size limit)."""
    hold = traffic.hold(principal, keys, _declared_length(scope))
    if hold is None:
        return None  # the handler answers 413 without reading it
    try:
        body, whole = await _read_capped(receive, MAX_BODY)
    except BaseException:
        traffic.release(hold)
        raise
    if not whole:  # over the size limit: the handler answers 413, nothing is kept
        traffic.release(hold)
        return Ticket(traffic, context, receive, body, hold)
    value, kept = traffic.settle(
        hold, principal, scope["method"], context.region, scope["path"], body
    )
    if type(value) is dict:  # what the handler would parse from these very bytes
        context.parsed_body = (body, value)
    if kept is not None:
        return Replay(kept)
    return Ticket(traffic, context, receive, body, hold)


def _declared_length(scope: Scope) -> int:
    value = first_header(scope, b"content-length")
    return int(value) if value is not None and value.isdigit() else 0


async def _read_capped(receive: Receive, cap: int) -> tuple[bytes, bool]:
    """The request body, or its first bytes and False once it exceeds `cap` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientDisconnect()
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if size > cap:
            return b"".join(chunks), False
        if not message.get("more_body", False):
            return b"".join(chunks), True


def pack_head(status: int, headers: Headers) -> bytes:
    """The head of a response to keep: the status, header lines and a blank line."""
    lines = [b"%d" % status, *[name + b": " + value for name, value in headers]]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def pack_response(head: bytes, chunks: list[bytes]) -> StoredResponse:
    """A response to keep, as one bytes object laid out like HTTP/1.1 (`pack_head`, then the
    body): one allocation of exactly its size, and nothing for the collector to walk (a record
    lives a day of mock time; see kept_bytes and domain.idempotency)."""
    return b"".join((head, *chunks)) if chunks else head


def unpack_response(stored: StoredResponse) -> tuple[int, Headers, bytes]:
    """(status, headers, body) of `pack_response`. A header line is never empty and never
    holds a line break, so the first blank line ends the head, and a name holds no colon."""
    head, _, body = stored.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = [(name, value) for name, _, value in (line.partition(b": ") for line in lines)]
    return int(status), headers, body


class Replay(NamedTuple):
    """A kept response to answer again."""

    response: StoredResponse

    def messages(self, rate_headers: Headers) -> tuple[Message, Message]:
        status, headers, body = unpack_response(self.response)
        start = {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, *rate_headers, REPLAYED],
        }
        return start, {"type": "http.response.body", "body": body}


class Ticket:
    """A request that runs: gives the app its buffered body and keeps what it answers."""

    __slots__ = ("_body", "_chunks", "_head", "_receive", "_status", "context", "hold", "traffic")

    def __init__(
        self,
        traffic: Traffic,
        context: RequestContext,
        receive: Receive,
        body: bytes,
        hold: Hold,
    ) -> None:
        self.traffic = traffic
        self.context = context
        self._receive = receive
        self._body: bytes | None = body
        self.hold = hold
        self._status = 0
        self._head = b""
        self._chunks: list[bytes] = []

    async def receive(self) -> Message:
        """The buffered body once, then whatever the connection says (a disconnect)."""
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        return await self._receive()

    def started(self, status: int, headers: Headers) -> None:
        """The response begins (its headers include X-Request-Id, not the rate-limit ones)."""
        self._status = status
        if self.hold.record is not None:
            self._head = pack_head(status, headers)

    def body(self, message: Message) -> None:
        """A body chunk; on the last one the response is kept or the key released."""
        if self.hold.record is None:
            return
        self._chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            self.finish()

    def finish(self) -> None:
        if self.hold.record is None:
            return
        response = pack_response(self._head, self._chunks)
        self.traffic.keep(self.hold, self.context.operation, self._status, response)

    def close(self) -> None:
        """After the request: release the key if no response was kept."""
        self.traffic.release(self.hold)
