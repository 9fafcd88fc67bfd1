"""`/_mock/mcp`: the MCP server over streamable HTTP, in the server it steers.

Each HTTP request is served on its own (stateless, JSON answers, no event stream): a fresh MCP
server over a client of the whole app in-process (the request's own `scope["app"]`), so a
tool's requests pass the guards, the durable log and the journal as any client's do. The
control plane has checked the admin token and the browser guard before this runs; the durable
log lets this path by, since the tools' own requests are what it keeps. `?account=ID` scopes
the server to that account (404 for no such account).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

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
