"""A loaded scenario's rules on an API request, at two places of the stack.

`Scenarios` (the innermost middleware; `engine/faults.py` decides): an injected answer, a
delay, a transport fault, chaos and latency, deprecation headers; only while a scenario has
armed something for the request. An account's request meets its own sandbox's scenarios,
then the server's.

`TransportFaults` (the outermost middleware) acts out a transport fault on the connection a
request came on. The sandbox decides the fault and rides it on its `Response`
(`engine.request.TransportFault`); the adapter raises it as a `TransportFaultError`, and
`TransportFaults` breaks the connection accordingly with the answer as the sandbox made it (never
compressed), through the connection the mock's HTTP server registered (`core.connections`):

- reset: a TCP reset before any byte of an answer (the client reads "connection reset");
- stall: nothing for `stall_ms` (or until the client leaves), then a reset;
- drop_after_commit: the request ran; the connection closes with no answer;
- truncate: the status, the headers and the first half of the body, then the connection
  closes (an empty body goes chunked, so that its end is missing too);
- slow_body: the status and headers, then the body at `bytes_per_second`, in pieces about
  every 50 ms (every byte, below 20 bytes a second).

Times here are wall time, as a client's timeouts are. A request with no such connection (an
ASGI transport in-process, or one the sandbox makes itself) raises `TransportFaultError` for its
caller to act out.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core import connections
from mockserver.engine.faults import apply_rules
from mockserver.engine.journal import RequestState
from mockserver.engine.request import Response, TransportFault, is_own
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import capture, send_answer


class Scenarios:
    """Lets the scenarios' rules answer, delay or break a request, or pass it on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sandbox: SandboxState = scope["state"]["sandbox"]
        state: RequestState = scope["state"]["request"]
        path, method = state.path, state.request.method
        own, outer = sandbox.scenarios, sandbox.outer_scenarios
        if not path.startswith("/v1") or not (own.active or outer is not None):
            await self.app(scope, receive, send)
            return

        async def inner() -> Response:
            return await capture(self.app, scope, receive)

        async def after_own() -> Response:
            if outer is not None and outer.active:
                return await apply_rules(outer, state, inner)
            return await inner()

        if own.active and own.applies(method, path):
            response = await apply_rules(own, state, after_own)
        elif outer is not None:
            response = await after_own()
        else:
            await self.app(scope, receive, send)
            return
        await send_answer(response, send)


_TICK = 0.05  # seconds between two looks at a stalled connection


class TransportFaults:
    """Middleware acting out the transport fault an app raises, on the connection itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except TransportFaultError as faulted:
            await perform(faulted.response, scope, send)


async def perform(response: Response, scope: Scope, send: Send) -> None:
    """Answer `response` broken as its fault says."""
    fault = response.fault
    assert fault is not None
    connection = (
        None if is_own(scope) else connections.find(scope.get("server"), scope.get("client"))
    )
    if connection is None:
        raise TransportFaultError(response)
    kind = fault.kind
    if kind == "reset":
        connection.reset()
    elif kind == "stall":
        await _idle(connection, fault.stall_ms / 1000)
        connection.reset()
    elif kind == "drop_after_commit":
        connection.close()
    elif kind == "truncate":
        headers = response.headers
        if not response.body:  # no Content-Length: chunked, so the missing end shows
            headers = [line for line in headers if line[0] != b"content-length"]
        await send(_start(response.status, headers))
        cut = response.body[: len(response.body) // 2]
        await send({"type": "http.response.body", "body": cut, "more_body": True})
        connection.close()
    else:  # slow_body
        await send(_start(response.status, response.headers))
        await _trickle(response.body, fault, connection, send)
        return
    await connection.wait_lost()  # uvicorn then sees the client gone, and answers nothing


def _start(status: int, headers: list[tuple[bytes, bytes]]) -> Message:
    return {"type": "http.response.start", "status": status, "headers": headers}


async def _idle(connection: connections.Connection, seconds: float) -> None:
    """Wait `seconds`, or less if the client closes the connection first."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while not connection.closing and (left := until - loop.time()) > 0:
        await asyncio.sleep(min(left, _TICK))


async def _trickle(
    body: bytes, fault: TransportFault, connection: connections.Connection, send: Send
) -> None:
    """Send `body` at the fault's pace: each piece after the time it is worth."""
    piece, interval = fault.pace()
    loop = asyncio.get_running_loop()
    due = loop.time()
    for start in range(0, len(body), piece):
        due += interval
        while (left := due - loop.time()) > 0 and not connection.closing:
            await asyncio.sleep(left)
        if connection.closing:
            return
        more = start + piece < len(body)
        chunk = body[start : start + piece]
        await send({"type": "http.response.body", "body": chunk, "more_body": more})
    if not body:
        await send({"type": "http.response.body", "body": b""})
