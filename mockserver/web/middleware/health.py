"""`GET /_mock/health` answered before anything else looks at the request: no admin token, no
guard, no request id, no journal entry, no line in a durable sandbox's log
(`engine/control_plane/health.py`)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.control_plane.health import HEALTH, health, is_health_check
from mockserver.engine.request import request_of
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import send_response


class Health:
    """Answers a health check; passes every other request on."""

    def __init__(self, app: ASGIApp, sandbox: SandboxState | None = None) -> None:
        self.app = app
        self.live = None if sandbox is None else sandbox.live  # the watched seed, if any

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == HEALTH:
            if is_health_check(request_of(scope)):
                live = self.live
                await send_response(health(None if live is None else live.seed_error), send)
                return
        await self.app(scope, receive, send)
