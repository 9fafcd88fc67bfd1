"""ASGI and the sandbox's values, both ways: an ASGI request becomes a `Request` and the
sandbox's `Response` becomes ASGI messages (`send_response`); a `Request` is answered by an
ASGI app (`answer`: what `Sandbox.handle`, a durable log's replay and a trigger's own requests
enter through). Nothing here decides how the API behaves; that is the middleware's (`app.py`).

The body is handed over as a reader, so the sandbox reads it when the request's turn comes (a
keyed POST holds its key while a slow body arrives).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.engine.request import (
    BodyReader,
    Disconnected,
    HeaderLines,
    Request,
    Response,
)
from mockserver.engine.transport_error import TransportFaultError


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


def request_of(scope: Scope) -> Request:
    """The sandbox's request for an ASGI HTTP scope (its body read apart)."""
    client = scope.get("client")
    server = scope.get("server")
    return Request.of(
        scope["method"],
        scope["path"],
        header_lines(scope.get("headers") or []),
        scope.get("query_string", b""),
        b"",
        (client[0], client[1]) if client else None,
        scope.get("scheme", "http"),
        (server[0], server[1]) if server else None,
        scope.get("root_path", ""),
    )


def scope_of(request: Request) -> Scope:
    """The ASGI HTTP scope of a `Request` (the inverse of `request_of`)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "query_string": request.query,
        "root_path": request.root_path,
        "headers": request.headers,
        "client": request.client,
        "server": request.server,
        "state": {},
    }


Edit = Callable[[HeaderLines], HeaderLines]  # a middleware's change to an answer's headers


async def call_editing(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, edit: Edit
) -> None:
    """Call `app`, with `edit` applied to the headers of the answer it gives: sent, or riding
    on a transport fault."""

    async def edited(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": edit(header_lines(message["headers"]))}
        await send(message)

    try:
        await app(scope, receive, edited)
    except TransportFaultError as faulted:
        faulted.response.headers = edit(faulted.response.headers)
        raise


async def capture(app: ASGIApp, scope: Scope, receive: Receive) -> Response:
    """`app`'s answer as a `Response` (nothing sent): the status, headers and body it sent,
    or the answer a transport fault rode on."""
    status = 500
    headers: HeaderLines = []
    chunks: list[bytes] = []

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = header_lines(message.get("headers") or [])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    try:
        await app(scope, receive, send)
    except TransportFaultError as faulted:
        return faulted.response
    return Response(status, headers, b"".join(chunks))


def receive_once(body: bytes) -> Receive:
    """An ASGI `receive` that gives `body` whole, then says the client has gone."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def answer(app: ASGIApp, request: Request) -> Response:
    """`app`'s answer to `request`, its body given whole (see `capture`)."""
    return await capture(app, scope_of(request), receive_once(request.body))


async def send_answer(response: Response, send: Send) -> None:
    """Send `response`, or raise its transport fault for `TransportFaults` to act out."""
    if response.fault is not None:
        raise TransportFaultError(response)
    await send_response(response, send)


async def send_response(response: Response, send: Send) -> None:
    """Send `response` whole as ASGI messages."""
    start: Message = {
        "type": "http.response.start",
        "status": response.status,
        "headers": response.headers,
    }
    await send(start)
    await send({"type": "http.response.body", "body": response.body})
