"""The parts of the sandbox an app serves, for the inspector's Starlette endpoints: the
server's, or the account sandbox the inspector watches.

A person picks an account to watch (the overview's Watch button: a form POST to
`/_mock/ui/watch` with `account=ID`, kept in the `mock_watch` cookie; or `?account=ID` on any
page, for that page alone): every page and button then reads and steers that
account's sandbox (its clock, requests, deliveries, scenarios, resources), until they go back
to the whole server. A watched account that is gone is forgotten: the server is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request

if TYPE_CHECKING:
    from mockserver.domain.store import Store
    from mockserver.engine.control import Control
    from mockserver.engine.sandbox import SandboxState

WATCH = "mock_watch"  # the cookie naming the watched account


def server_of(request: Request) -> SandboxState:
    """The server's sandbox."""
    sandbox: SandboxState = request.app.state.sandbox
    return sandbox


def sandbox_of(request: Request) -> SandboxState:
    """The sandbox the inspector shows: an account's (`?account=`, 404 or 409 when it has no
    sandbox; else the watched one, if it still exists) or the server's."""
    server = server_of(request)
    tenants = server.tenants
    if tenants is None:
        return server
    asked = request.query_params.get("account")
    if asked:
        return tenants.get(asked).sandbox
    kept = tenants.by_id.get(request.cookies.get(WATCH, ""))
    return server if kept is None else kept.sandbox


def store_of(request: Request) -> Store:
    return sandbox_of(request).store


def control_of(request: Request) -> Control:
    """The control facade of the sandbox shown."""
    return sandbox_of(request).control
