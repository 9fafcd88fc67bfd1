"""`/_mock/mcp`: the MCP server over streamable HTTP, in the server it steers.

Each HTTP request is served on its own (stateless, JSON answers, no event stream): a fresh MCP
server over a client of the whole app in-process (the request's own `scope["app"]`), so a
tool's requests pass the guards, the durable log and the journal as any client's do. The
control plane has checked the admin token and the browser guard before this runs; the durable
log lets this path by, since the tools' own requests are what it keeps. `?account=ID` scopes
the server to that account (404 for no such account).

A stateless server has nothing to say but answers, so it offers no event stream: a `GET` (which
a client sends to open one), a `DELETE` (which ends a session) or any other method but `POST`
is 405 with `Allow: POST`, as the MCP transport specifies, and MCP clients go on without the
stream. (The SDK would hold a `GET` open for good, streaming nothing.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import INVALID_REQUEST, ErrorData, JSONRPCError
from starlette.responses import Response

from mockserver.agents.client import MockClient, Refused
from mockserver.agents.server import build_server
from mockserver.core.errors import NotFound

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


async def serve_mcp(
    scope: MutableMapping[str, Any], receive: Receive, send: Send, admin_token: str | None
) -> None:
    """Answer one MCP request to the app of `scope`."""
    if scope["method"] != "POST":
        await not_allowed(scope["method"])(scope, receive, send)
        return
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    account = query.get("account", [None])[-1]
    client = MockClient.in_process(scope["app"], admin_token, account or None)
    try:
        if client.account is not None:
            try:
                await client.control("GET", client.scoped(""))
            except Refused:
                raise NotFound(
                    f"No account '{client.account[:64]}' to scope the MCP server to.",
                    param="account",
                ) from None
        manager = StreamableHTTPSessionManager(
            build_server(client), json_response=True, stateless=True
        )
        async with manager.run():
            await manager.handle_request(scope, receive, send)
    finally:
        await client.aclose()


def not_allowed(method: str) -> Response:
    """405 with `Allow: POST` and a JSON-RPC error, as the SDK words its own refusals."""
    error = JSONRPCError(
        jsonrpc="2.0",
        id=None,
        error=ErrorData(
            code=INVALID_REQUEST,
            message=f"Method Not Allowed: {method[:16]}. This MCP server is stateless: it "
            "answers POST only and offers no event stream.",
        ),
    )
    body = error.model_dump_json(by_alias=True, exclude_unset=True)
    return Response(body, 405, headers={"Allow": "POST"}, media_type="application/json")
