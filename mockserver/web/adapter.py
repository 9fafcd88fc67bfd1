"""ASGI and the sandbox's values, both ways: the sandbox's `Response` becomes ASGI messages
(`send_response`); a `Request` is answered by an ASGI app (`answer`: what `Sandbox.handle`
enters through; `own_requests`: the sandbox's own requests, a trigger's and a durable log's
replay). Nothing here decides how the API behaves; that is the middleware's (`app.py`). An ASGI
request becomes a `Request` in `engine/request.py` (`request_of`, `body_reader`).
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.engine.request import (
    OWN_REQUEST,
    HeaderLines,
    Request,
    Response,
    Serve,
    asgi_header_lines,
)
from mockserver.engine.transport_error import TransportFaultError


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
            message = {**message, "headers": edit(asgi_header_lines(message["headers"]))}
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
            headers = asgi_header_lines(message.get("headers") or [])
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


def own_requests(app: ASGIApp) -> Serve:
    """The way the sandbox's own requests enter `app`: the whole stack, each marked
    `OWN_REQUEST`."""

    async def serve(request: Request) -> Response:
        scope = scope_of(request)
        scope["app"] = app
        scope["state"] = {OWN_REQUEST: True}
        return await capture(app, scope, receive_once(request.body))

    return serve


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
