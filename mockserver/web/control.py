"""The `/_mock` control plane as a Starlette mount: a route per endpoint of its table
(`engine/control_plane/routes.py`), in the table's order, each a plain async function run on
the `ControlCall` of its request once the admin token (when one is set) is checked; then the
server's endpoints an account has too, under `/_mock/accounts/{account_id}`, run on that
account's sandbox (404 for no such account, 409 for a seeded one).

The guard against web pages is a middleware (`middleware/control_guard.py`): it has refused a
request before it gets here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from mockserver.engine.control_plane.call import (
    ControlCall,
    Endpoint,
    check_admin_token,
    given_admin_token,
)
from mockserver.engine.control_plane.routes import ACCOUNT_ENDPOINTS, SERVER_ENDPOINTS
from mockserver.engine.journal import RequestState
from mockserver.engine.request import CONTROL_PLANE
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import own_requests
from mockserver.web.render import as_sent
from mockserver.web.unmatched import router

Served = Callable[[Request], Awaitable[Response]]


def control_mount(server: SandboxState) -> Mount:
    """The control plane of the server's sandbox `server`, mounted at `/_mock`."""
    routes = [
        Route(path.removeprefix(CONTROL_PLANE), _served(server, endpoint), methods=methods)
        for methods, path, endpoint in SERVER_ENDPOINTS
    ] + [
        Route(f"/accounts/{{account_id}}{path}", _served(server, endpoint, True), methods=methods)
        for methods, path, endpoint in ACCOUNT_ENDPOINTS
    ]
    return Mount(CONTROL_PLANE, app=router(routes))


def _served(server: SandboxState, endpoint: Endpoint, of_account: bool = False) -> Served:
    """`endpoint` as a Starlette endpoint on `server` (on the account the path names, for
    `of_account`)."""
    token = server.settings.admin_token
    tenants = server.tenants

    async def serve(request: Request) -> Response:
        state: RequestState = request.scope["state"]["request"]
        if token is not None:
            check_admin_token(token, given_admin_token(state.request))
        params = request.path_params
        sandbox = server
        if of_account:
            assert tenants is not None  # a server's sandbox always has them
            sandbox = tenants.get(params["account_id"]).sandbox
        enter = own_requests(request.scope["app"])
        return as_sent(await endpoint(ControlCall(sandbox, state, params, enter, server)))

    return serve
