"""The Model Context Protocol server, for coding agents (`mockserver mcp`, `/_mock/mcp`): tools
and resources that are thin calls of the control plane and the API. Only `server.py`,
`http.py` and `stdio.py` import the MCP SDK, and nothing imports them until an MCP path or
command is used."""
