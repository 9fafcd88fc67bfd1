"""The `/_mock` control plane as a Starlette mount: a route per endpoint of its table
(`engine/control_plane/routes.py`), in the table's order, each a plain async function run on
the `ControlCall` of its request once the admin token (when one is set) is checked; then the
server's endpoints an account has too, under `/_mock/accounts/{account_id}`, run on that
account's sandbox (404 for no such account, 409 for a seeded one).

The guard against web pages is the authentication middleware's (`middleware/authentication.py`):
it has refused a request before it gets here.

`/_mock/mcp` is the MCP server (`mockserver.agents`), an ASGI app of the optional `mcp` extra:
its SDK is imported on the first MCP request, never before; without the extra the path is 404
naming it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib.util import find_spec

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import Receive, Scope, Send

from mockserver.core.errors import NotFound
from mockserver.engine.control_plane.call import (
    ControlCall,
    Endpoint,
    check_admin_token,
    given_admin_token,
)
from mockserver.engine.control_plane.routes import ACCOUNT_ENDPOINTS, SERVER_ENDPOINTS
from mockserver.engine.journal import RequestState
from mockserver.engine.request import CONTROL_PLANE, MCP_PATH
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
    routes.append(Route(MCP_PATH.removeprefix(CONTROL_PLANE), McpEndpoint(server)))
    return Mount(CONTROL_PLANE, app=router(routes))


class McpEndpoint:
    """`/_mock/mcp`, the MCP server over streamable HTTP, once the admin token (when one is
    set) is checked; 404 `not_found` naming the extra when the MCP SDK is not installed."""

    def __init__(self, server: SandboxState) -> None:
        self.admin_token = server.settings.admin_token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state: RequestState = scope["state"]["request"]
        if self.admin_token is not None:
            check_admin_token(self.admin_token, given_admin_token(state.request))
        if find_spec("mcp") is None:
            raise NotFound(
                "The MCP server needs the mcp extra: pip install 'mockserver[mcp]'.",
                param="path",
            )
        from mockserver.agents.http import serve_mcp  # the MCP SDK: imported on first use

        await serve_mcp(scope, receive, send, self.admin_token)


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
