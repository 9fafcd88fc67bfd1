"""`mockserver mcp`: the MCP server over stdio, its tools acting through one `MockClient`
(a running mock's, or a sandbox of the command's own)."""

from __future__ import annotations

from mcp.server.stdio import stdio_server

from mockserver.agents.client import MockClient
from mockserver.agents.server import build_server


async def serve_stdio(client: MockClient) -> None:
    """Serve MCP on stdin and stdout until the client closes stdin."""
    server = build_server(client)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
