"""The control plane's guard against web pages (`engine/control_plane/origin_guard.py`): with
no admin token, a `/_mock` request a web page could send (a foreign `Origin`, a `Host` that is
not loopback, `Sec-Fetch-Site: cross-site`) is 403 before anything reads it. Only the server's
sandbox has the guard.

Whatever the token, every answer to an inspector URL (`/_mock/ui`: its pages, redirects,
static files, and the envelopes of its errors and of this guard's refusals) forbids framing,
so no page can show the inspector inside its own and have a visitor's disguised click press
its buttons (which would send the inspector's own origin and pass every check above).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.journal import RequestState
from mockserver.engine.request import CONTROL_PLANE, INSPECTOR, HeaderLines
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import call_editing
from mockserver.web.middleware.errors import refuse

# Both spellings: X-Frame-Options for every browser, the CSP directive that supersedes it.
NO_FRAMING: HeaderLines = [
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
]


def unframeable(headers: HeaderLines) -> HeaderLines:
    """`headers`, then those that forbid showing the answer in a frame."""
    return [*headers, *NO_FRAMING]


class ControlGuard:
    """Refuses a `/_mock` request the guard does not let through; an inspector answer is
    sent with `NO_FRAMING`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]
        path = state.path
        if path == INSPECTOR or path.startswith(f"{INSPECTOR}/"):
            await call_editing(self.guarded, scope, receive, send, unframeable)
        elif path.startswith(CONTROL_PLANE):
            await self.guarded(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The control plane's request, refused when the sandbox's guard says so."""
        sandbox: SandboxState = scope["state"]["sandbox"]
        state: RequestState = scope["state"]["request"]
        guard = sandbox.control_guard
        if guard is not None:
            try:
                guard(state.request)
            except Exception as error:
                await refuse(sandbox, state, error, send)
                return
        await self.app(scope, receive, send)
