"""A durable sandbox's write-ahead log around the rest of the stack (`engine/durable/log.py`).

In the stack only for a `--state-dir` sandbox. Every request is an input of the log: its body
read whole, logged, run by the app below this middleware, and answered once on disk. The
sandbox's own requests (a trigger recipe's calls, the log's replay at start: `own_requests`)
pass through: they are part of the input that is running, so they take every step a client's
request takes after the log.
So does `/_mock/mcp`: an MCP request is not an input, the requests its tools make through the
whole app are (each logged on its own, which a logged MCP request holding the log would block).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.durable.log import Durability
from mockserver.engine.request import (
    MCP_PATH,
    Disconnected,
    Request,
    Response,
    body_reader,
    is_own,
    request_of,
)
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import capture, receive_once, scope_of, send_response


class DurableLog:
    """Logs and answers each request of a durable sandbox."""

    def __init__(self, app: ASGIApp, durability: Durability) -> None:
        self.app = app
        self.durability = durability

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_own(scope) or scope["path"] == MCP_PATH:
            await self.app(scope, receive, send)
            return
        app = scope.get("app")  # Starlette's: what a route's request reads as its app

        async def below(request: Request) -> Response:
            """The answer of the app below the log to `request` (its body read whole)."""
            inner = scope_of(request)
            inner["app"] = app
            return await capture(self.app, inner, receive_once(request.body))

        try:
            response = await self.durability.serve(request_of(scope), body_reader(receive), below)
        except Disconnected:
            return
        if response.fault is not None:
            raise TransportFaultError(response)
        await send_response(response, send)
