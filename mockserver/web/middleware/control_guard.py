"""The control plane's guard against web pages (`engine/control_plane/origin_guard.py`): with
no admin token, a `/_mock` request a web page could send (a foreign `Origin`, or a `Host` that
is not loopback) is 403 before anything reads it. Only the server's sandbox has the guard."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.journal import RequestState
from mockserver.engine.request import CONTROL_PLANE
from mockserver.engine.sandbox import SandboxState
from mockserver.web.middleware.errors import refuse


class ControlGuard:
    """Refuses a `/_mock` request the guard does not let through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sandbox: SandboxState = scope["state"]["sandbox"]
            state: RequestState = scope["state"]["request"]
            guard = sandbox.control_guard
            if guard is not None and state.path.startswith(CONTROL_PLANE):
                try:
                    guard(state.request)
                except Exception as error:
                    await refuse(sandbox, state, error, send)
                    return
        await self.app(scope, receive, send)
