"""The HTTP server's side of a sandbox: an ASGI request becomes a `Request`, the sandbox's
`Response` becomes ASGI messages (or a broken connection, for a scenario's transport fault:
`transport_faults.py`). Nothing here decides how the API behaves.

The body is handed over as a reader, so the sandbox reads it when the request's turn comes (a
keyed POST holds its key while a slow body arrives). Compression is the one thing added on the
way out, after the journal has seen the body as the sandbox answered it: Starlette's
GZipMiddleware for clients that accept gzip. For the others, GZipMiddleware would only add
`Vary: Accept-Encoding` to large answers, through a responder it builds per request (its
excluded media types normalized again each time); `identity_vary` makes the same decisions on
the whole response, and tests/unit/web/test_identity_vary.py holds it to what GZipMiddleware
sends.
"""

from __future__ import annotations

from typing import Any, cast

from starlette.datastructures import MutableHeaders
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Message, Receive, Scope, Send

from mockserver.engine.request import (
    BodyReader,
    Disconnected,
    HeaderLines,
    Request,
    Response,
)
from mockserver.engine.sandbox import Sandbox
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.transport_faults import perform

_VARY = (b"vary", b"Accept-Encoding")
_TYPES_KEPT = 64  # Content-Type values whose exclusion is kept: the API sends a handful


def body_reader(receive: Receive) -> BodyReader:
    """A reader of the body `receive` gives: at most `cap` + 1 bytes, or Disconnected."""

    async def read(cap: int) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise Disconnected()
            chunk: bytes = message.get("body", b"")
            if chunk:
                size += len(chunk)
                chunks.append(chunk)
                if size > cap:
                    break
            if not message.get("more_body", False):
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    return read


def header_lines(headers: Any) -> HeaderLines:
    """The scope's headers as a list of (bytes, bytes) tuples: themselves when they are one
    (uvicorn's and httpx's are), else a copy of any iterable of two-item iterables the ASGI
    spec allows."""
    if type(headers) is list:
        for pair in headers:
            if (
                type(pair) is not tuple
                or len(pair) != 2
                or type(pair[0]) is not bytes
                or type(pair[1]) is not bytes
            ):
                break
        else:
            return cast(HeaderLines, headers)
    return [(bytes(name), bytes(value)) for name, value in headers]


def accepts_gzip(headers: HeaderLines) -> bool:
    """What GZipMiddleware asks of a request: does its first Accept-Encoding header contain
    `gzip`?"""
    for name, value in headers:
        if name == b"accept-encoding":
            return "gzip" in value.decode("latin-1")  # as str: bytes `in` raises, then finds
    return False


def excluded_type(content_type: bytes, excluded: frozenset[str]) -> bool:
    """Whether GZipMiddleware leaves a response of this Content-Type value alone (`excluded`:
    its normalized media types, `type/*` for a whole type)."""
    media_type = content_type.decode("latin-1").partition(";")[0].strip().lower()
    kinds = {media_type, media_type.partition("/")[0] + "/*"}
    if media_type.startswith("application/grpc+"):
        kinds.add("application/grpc")
    return not kinds.isdisjoint(excluded)


def request_of(scope: Scope, headers: HeaderLines | None = None) -> Request:
    """The sandbox's request for an ASGI HTTP scope (its body read apart; `headers`: the
    scope's as `header_lines` gives them, when already made)."""
    client = scope.get("client")
    server = scope.get("server")
    return Request.of(
        scope["method"],
        scope["path"],
        header_lines(scope.get("headers") or []) if headers is None else headers,
        scope.get("query_string", b""),
        b"",
        (client[0], client[1]) if client else None,
        scope.get("scheme", "http"),
        (server[0], server[1]) if server else None,
        scope.get("root_path", ""),
    )


class Adapter:
    """The ASGI app of one sandbox's HTTP requests."""

    def __init__(self, sandbox: Sandbox, *, minimum_size: int, compresslevel: int) -> None:
        self.sandbox = sandbox
        self.minimum_size = minimum_size
        self.gzip = GZipMiddleware(self.serve, minimum_size, compresslevel)
        self.excluded = frozenset(self.gzip.exclude_content_types)
        self._excluded_types: dict[bytes, bool] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = header_lines(scope["headers"])
        if accepts_gzip(headers):
            try:
                await self.gzip(scope, receive, send)
            except TransportFaultError as faulted:  # broken, so not compressed
                await perform(faulted.response, scope, send)
            return
        try:
            response = await self.sandbox.handle(
                request_of(scope, headers), body=body_reader(receive)
            )
        except Disconnected:
            return
        if response.fault is not None:
            await perform(response, scope, send)
            return
        self.identity_vary(response)
        await _send(response, send)

    async def serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One request, answered whole (a client that left mid-body gets nothing): the app
        behind GZipMiddleware."""
        try:
            response = await self.sandbox.handle(request_of(scope), body=body_reader(receive))
        except Disconnected:
            return
        if response.fault is not None:  # to `__call__`, which has the uncompressed `send`
            raise TransportFaultError(response)
        await _send(response, send)

    def identity_vary(self, response: Response) -> None:
        """What GZipMiddleware's identity responder does to a whole response, for a client
        that does not accept gzip: `Vary: Accept-Encoding` when the body is at least the
        minimum size, unless the response is partial (206), already encoded or of an excluded
        media type."""
        if len(response.body) < self.minimum_size or response.status == 206:
            return
        content_type: bytes | None = None
        vary = False
        for name, value in response.headers:
            if name == b"content-encoding":
                return
            if name == b"content-type":
                if content_type is None:
                    content_type = value
            elif name == b"vary":
                vary = True
        if content_type is not None:
            excluded = self._excluded_types.get(content_type)
            if excluded is None:
                excluded = excluded_type(content_type, self.excluded)
                if len(self._excluded_types) < _TYPES_KEPT:
                    self._excluded_types[content_type] = excluded
            if excluded:
                return
        if vary:  # joined to the first Vary, the others dropped, as GZipMiddleware does
            MutableHeaders(raw=response.headers).add_vary_header("Accept-Encoding")
        else:
            response.headers.append(_VARY)


async def _send(response: Response, send: Send) -> None:
    start: Message = {
        "type": "http.response.start",
        "status": response.status,
        "headers": response.headers,
    }
    await send(start)
    await send({"type": "http.response.body", "body": response.body})
