"""The MCP server on the official SDK (the `mcp` extra): the tools of `catalog.py` and the
resources, over one `MockClient`. The one module besides `http.py` and `stdio.py` that imports
the SDK, and none of them is imported until an MCP path or command is used.

A tool's answer is its JSON, as text and as structured content. A refusal is a tool error
(`isError: true`) whose text is the mock's error envelope and a hint of what to do next, so a
model can act on it; a tool this scope does not offer is one too. Only a malformed MCP message
is a protocol error.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from mockserver.agents.catalog import (
    FORMAT_URI,
    SCENARIO_URI,
    TOOL,
    TOOLS,
    scenario_format,
    shipped_scenarios,
)
from mockserver.agents.client import Broken, MockClient, Refused
from mockserver.agents.hints import hint
from mockserver.agents.tools import Tool, checked
from mockserver.core.version import __version__

INSTRUCTIONS = (
    "This server steers mockserver, a stateful sandbox of the Document, Vault, Workflow and "
    "Audit API (v1). Call status first: it shows the clock, the loaded scenarios and the API "
    "keys. Make API calls with api_request; load faults and states with scenario_load; move "
    "time with clock_advance; ask why a request failed with request_explain; check what a "
    "client sent with requests_verify; save and restore states with snapshot_save and "
    "snapshot_restore."
)


def build_server(client: MockClient) -> Server[Any]:
    """An MCP server whose tools act through `client` (in its account's scope, if any)."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        account = await _account(client)
        scoped = client.account is not None
        return types.ListToolsResult(
            tools=[_listed(tool, scoped) for tool in TOOLS if tool.offered(account)]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await run_tool(client, params.name, params.arguments)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        resources = [
            types.Resource(
                uri=f"{SCENARIO_URI}{name}",
                name=f"scenario {name}",
                description=f"The shipped scenario '{name}' (YAML): scenario_load loads it by "
                "name; copy and edit it to write your own.",
                mime_type="application/yaml",
            )
            for name in shipped_scenarios()
        ]
        resources.append(
            types.Resource(
                uri=FORMAT_URI,
                name="scenario format",
                description="The scenario file format, and its JSON Schema: what a YAML "
                "passed to scenario_load may hold.",
                mime_type="text/markdown",
            )
        )
        return types.ListResourcesResult(resources=resources)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == FORMAT_URI:
            text, mime = scenario_format(), "text/markdown"
        else:
            path = shipped_scenarios().get(uri.removeprefix(SCENARIO_URI))
            if not uri.startswith(SCENARIO_URI) or path is None:
                raise MCPError(types.INVALID_PARAMS, f"No resource {uri[:200]!r}.")
            text, mime = path.read_text(encoding="utf-8"), "application/yaml"
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    return Server(
        "mockserver",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def run_tool(
    client: MockClient, name: str, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    """The result of calling the tool `name`: its answer, or a tool error."""
    tool = TOOL.get(name)
    try:
        if tool is None or (client.account is not None and not tool.scoped):
            raise Refused(
                404,
                {
                    "error": {
                        "type": "not_found",
                        "message": f"No tool '{name}' here.",
                        "param": "name",
                    }
                },
                "tools/list shows the tools of this server"
                + ("" if client.account is None else f" (scoped to account {client.account})")
                + ".",
            )
        if tool.own_clock and client.account is not None:
            account = await _account(client)
            if not tool.offered(account):
                raise Refused(
                    409,
                    {
                        "error": {
                            "type": "conflict",
                            "message": f"Account {client.account} follows the server clock, "
                            "which an account-scoped server cannot move.",
                            "param": "account",
                        }
                    },
                    "Only an account made with a clock of its own has clock tools.",
                )
        answer = await tool.run(client, checked(tool, arguments, client.account is not None))
    except Refused as refused:
        return _refusal(refused)
    except Broken as broken:
        return _refusal(Refused(0, {"error": {"type": "unreachable", "message": str(broken)}}))
    structured = answer if isinstance(answer, dict) else {"result": answer}
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(answer, indent=1))],
        structured_content=structured,
    )


def _refusal(refused: Refused) -> types.CallToolResult:
    """The tool error of a refusal: the envelope, then the hint."""
    advice = refused.hint or hint(refused.body)
    text = json.dumps(refused.body, indent=1) + f"\n\nHint: {advice}"
    structured: dict[str, Any] = {"status": refused.status, "error": refused.body, "hint": advice}
    if refused.detail is not None:
        structured["answer"] = refused.detail
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured, is_error=True
    )


def _listed(tool: Tool, scoped: bool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema(scoped),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
        ),
    )


async def _account(client: MockClient) -> dict[str, Any] | None:
    """The scoped account as the control plane shows it (None for the server's scope); an
    MCP error when it is gone."""
    if client.account is None:
        return None
    try:
        found: dict[str, Any] = await client.control("GET", client.scoped(""))
    except (Refused, Broken) as error:
        raise MCPError(types.INVALID_PARAMS, f"Account {client.account}: {error}") from None
    return found
