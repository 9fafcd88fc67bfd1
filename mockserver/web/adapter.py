"""The HTTP server's side of a sandbox: an ASGI request becomes a `Request`, the sandbox's
`Response` becomes ASGI messages. Nothing here decides how the API behaves; compression and
transport faults are middleware around it (`app.py`).

The body is handed over as a reader, so the sandbox reads it when the request's turn comes (a
keyed POST holds its key while a slow body arrives).
"""

from __future__ import annotations

from typing import Any, cast

from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from mockserver.engine.request import (
    BodyReader,
    Disconnected,
    HeaderLines,
    Request,
    Response,
)
from mockserver.engine.sandbox import Sandbox
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


class Adapter:
    """The ASGI app of one sandbox's requests; a WebSocket is closed at once, as the API has
    none."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One request, answered whole (a client that left mid-body gets nothing). An answer
        with a transport fault is raised for `TransportFaults`, outside compression, to act
        out."""
        if scope["type"] != "http":
            await WebSocketClose()(scope, receive, send)
            return
        try:
            response = await self.sandbox.handle(request_of(scope), body=body_reader(receive))
        except Disconnected:
            return
        if response.fault is not None:
            raise TransportFaultError(response)
        await _send(response, send)


async def _send(response: Response, send: Send) -> None:
    start: Message = {
        "type": "http.response.start",
        "status": response.status,
        "headers": response.headers,
    }
    await send(start)
    await send({"type": "http.response.body", "body": response.body})
