"""A durable sandbox's write-ahead log around the rest of the stack (`engine/durable/log.py`).

Every request is an input of the log: its body read whole, logged, run by the app below this
middleware, and answered once on disk. The log's replay at start and a trigger's own requests
enter the app below it too (`SandboxState.serve`), so they take every step a client's request
takes after the log. A sandbox with no state directory passes requests straight on.
So does `/_mock/mcp`: an MCP request is not an input, the requests its tools make through the
whole app are (each logged on its own, which a logged MCP request holding the log would block).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.request import (
    MCP_PATH,
    Disconnected,
    Request,
    Response,
    body_reader,
    request_of,
)
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import answer, send_response


class DurableLog:
    """Logs and answers each request of a durable sandbox; the way in below the log for the
    sandbox's own requests."""

    def __init__(self, app: ASGIApp, sandbox: SandboxState) -> None:
        self.app = app
        self.sandbox = sandbox
        sandbox.serve_through(self.below)

    async def below(self, request: Request) -> Response:
        """The answer of the app below the log to `request`."""
        return await answer(self.app, request)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        durability = self.sandbox.durability
        if durability is None or scope["type"] != "http" or scope["path"] == MCP_PATH:
            await self.app(scope, receive, send)
            return
        try:
            response = await durability.serve(request_of(scope), body_reader(receive))
        except Disconnected:
            return
        if response.fault is not None:
            raise TransportFaultError(response)
        await send_response(response, send)
