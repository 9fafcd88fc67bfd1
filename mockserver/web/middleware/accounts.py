"""Which sandbox answers a request: the account sandbox holding its bearer key (or, for a
pre-signed export download, the export), else the server's (`engine/accounts/sandboxes.py`).
`/_mock` requests are the server's. The choice is `scope["state"]["sandbox"]`: every step below
takes it from there, so an account's request runs on its own store, clock, id streams,
scenarios and share of the journal.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.reading import CONTROL_PLANE
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import header_lines


class Accounts:
    """Puts the sandbox that answers a request into its scope's state."""

    def __init__(self, app: ASGIApp, sandbox: SandboxState) -> None:
        self.app = app
        self.sandbox = sandbox

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sandbox = self.sandbox
            path: str = scope["path"]
            tenants = sandbox.tenants
            if tenants is not None and not path.startswith(CONTROL_PLANE):
                headers = header_lines(scope.get("headers") or [])
                sandbox = tenants.owner(headers, path) or sandbox
            scope.setdefault("state", {})["sandbox"] = sandbox
        await self.app(scope, receive, send)
