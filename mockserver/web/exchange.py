"""The response side of one request, for the pipeline: what were three `send` wrappers of three
middleware layers, as one.

In the order the layers ran, for each message the app sends:
1. the pipeline's step: `X-Request-Id` after the app's headers, the idempotency ticket keeps
   the response (headers with the id, without the rate-limit ones), then the rate-limit headers
   and `Date` (the mock clock's second when the request came in; a replay gets its own);
2. the journal's: the status, headers and body as they are now (before gzip);
3. GZipMiddleware's identity path (clients that do not accept gzip): the start is held until
   the first body, and gets `Vary: Accept-Encoding` when that body is at least the minimum
   size or more follows, unless the response is one that GZipMiddleware leaves alone.

A replayed idempotent response skips step 1 but for `Date`: it was stored with its headers.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import Message, Send

from mockserver.engine.calls import Headers
from mockserver.engine.journal import Entry
from mockserver.web.compression import _left_alone
from mockserver.web.traffic import Ticket

_VARY = (b"vary", b"Accept-Encoding")


class Exchange:
    """Call it as the app's `send`."""

    __slots__ = (
        "_body_started",
        "_held",
        "_passing",
        "date",
        "entry",
        "id_header",
        "rate_headers",
        "replaying",
        "send",
        "started",
        "ticket",
        "vary_size",
    )

    def __init__(
        self,
        send: Send,
        entry: Entry | None,
        vary_size: int | None,
        id_header: tuple[bytes, bytes],
        date: tuple[bytes, bytes],
    ) -> None:
        self.send = send
        self.date = date  # `Date`, last on every response, replays too: never kept
        self.entry = entry
        self.vary_size = vary_size  # None: no identity step (gzip's responder is outside)
        self.id_header = id_header
        self.rate_headers: Headers = []
        self.ticket: Ticket | None = None
        self.started = False  # the app's response has begun (errors can no longer be sent)
        self.replaying = False
        self._held: Message | None = None
        self._passing = vary_size is None  # the identity step lets everything through
        self._body_started = False

    async def __call__(self, message: Message) -> None:
        kind = message["type"]
        ticket = self.ticket
        entry = self.entry
        if kind == "http.response.start":
            if not self.replaying:
                self.started = True
                headers = [*message.get("headers", []), self.id_header]
                if ticket is not None:
                    ticket.started(message["status"], headers)
                message["headers"] = [*headers, *self.rate_headers, self.date]
            else:
                message["headers"] = [*message.get("headers", []), self.date]
            if entry is not None:
                entry.status = message["status"]
                entry.response_headers = tuple(message.get("headers", ()))
            if not self._passing:
                message.setdefault("headers", [])
                if not _left_alone(message):
                    self._held = message
                    return
                self._passing = True
            await self.send(message)
            return
        if ticket is not None and not self.replaying:
            ticket.body(message)
        if entry is not None and kind == "http.response.body":
            entry.add_response_body(message.get("body", b""))
        held = self._held
        if held is None or self._passing:
            await self.send(message)
        elif kind == "http.response.body" and not self._body_started:
            self._body_started = True
            size = self.vary_size or 0
            if len(message.get("body", b"")) >= size or message.get("more_body", False):
                _add_vary(held["headers"])
            await self.send(held)
            await self.send(message)
        elif kind == "http.response.pathsend":
            await self.send(held)
            await self.send(message)
        else:  # later body chunks, early hints, trailers
            await self.send(message)

    async def respond(self, status: int, headers: Headers, body: bytes, kept: bool = False) -> None:
        """A whole response (a start, then one last body chunk) from the app: exactly what
        calling this with those two messages does, without building and reading them back
        (the dispatcher's path for an operation's JSON answer, every API answer but a few)."""
        if self.replaying:  # never while the app runs; kept for the exact equivalence
            await self(_start(status, headers))
            await self({"type": "http.response.body", "body": body})
            return
        self.started = True
        headers = [*headers, self.id_header]
        ticket = self.ticket
        if ticket is not None:
            ticket.started(status, headers)
        headers += self.rate_headers
        headers.append(self.date)
        entry = self.entry
        if entry is not None:
            entry.status = status
            entry.response_headers = tuple(headers)
        start = _start(status, headers)
        if not self._passing:
            if not _left_alone(start):
                if len(body) >= (self.vary_size or 0):
                    _add_vary(headers)
                self._body_started = True
                if ticket is not None:
                    ticket.body({"type": "http.response.body", "body": body})
                if entry is not None:
                    entry.add_response_body(body, kept)
                await self.send(start)
                await self.send({"type": "http.response.body", "body": body})
                return
            self._passing = True
        await self.send(start)
        message = {"type": "http.response.body", "body": body}
        if ticket is not None:
            ticket.body(message)
        if entry is not None:
            entry.add_response_body(body, kept)
        await self.send(message)


def _start(status: int, headers: Headers) -> Message:
    return {"type": "http.response.start", "status": status, "headers": headers}


def _add_vary(headers: Headers) -> None:
    """What `MutableHeaders.add_vary_header("Accept-Encoding")` does, without building one
    when there is no Vary header yet (the usual case)."""
    for name, _ in headers:
        if name == b"vary":
            MutableHeaders(raw=headers).add_vary_header("Accept-Encoding")
            return
    headers.append(_VARY)
