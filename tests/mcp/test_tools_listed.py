"""Every tool is listed with its input schema and annotations, over streamable HTTP and over
stdio; the resources hold the shipped scenarios and the scenario format."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

import pytest
import yaml
from mcp import Client

from mockserver.core.shipped import data_dir
from mockserver.testing.live import LiveServer
from tests.mcp.conftest import over_http, over_stdio

pytestmark = pytest.mark.anyio

ALL = [
    "status",
    "api_request",
    "reset",
    "clock_advance",
    "clock_set",
    "scenario_load",
    "scenario_unload",
    "scenarios_list",
    "requests_list",
    "request_explain",
    "requests_verify",
    "snapshot_save",
    "snapshot_restore",
    "snapshots_list",
    "account_create",
    "account_delete",
    "accounts_list",
    "deliveries_list",
    "delivery_redeliver",
    "event_trigger",
    "legal_hold",
]
READ_ONLY = {
    "status",
    "scenarios_list",
    "requests_list",
    "request_explain",
    "requests_verify",
    "snapshots_list",
    "accounts_list",
    "deliveries_list",
}
DESTRUCTIVE = {"reset", "snapshot_restore", "scenario_unload", "account_delete"}


async def check_listing(session: AbstractAsyncContextManager[Client]) -> None:
    async with session as client:
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == ALL
        for tool in tools:
            assert len(tool.description or "") > 60, tool.name
            assert tool.input_schema["type"] == "object", tool.name
            assert tool.input_schema["additionalProperties"] is False, tool.name
            annotations = tool.annotations
            assert annotations is not None
            assert annotations.read_only_hint is (tool.name in READ_ONLY), tool.name
            assert annotations.destructive_hint is (tool.name in DESTRUCTIVE), tool.name
        by_name = {tool.name: tool for tool in tools}
        assert by_name["api_request"].input_schema["required"] == ["method", "path"]
        assert by_name["clock_advance"].input_schema["properties"]["seconds"]["minimum"] == 0
        assert "account" in by_name["requests_list"].input_schema["properties"]


async def test_every_tool_is_listed_over_http(server: LiveServer) -> None:
    await check_listing(over_http(f"{server.base_url}/_mock/mcp"))


async def test_every_tool_is_listed_over_stdio() -> None:
    await check_listing(over_stdio())


async def test_the_resources_are_the_shipped_scenarios_and_the_format(server: LiveServer) -> None:
    shipped = sorted(path.stem for path in data_dir("scenarios").glob("*.yaml"))
    async with over_http(f"{server.base_url}/_mock/mcp") as client:
        resources = (await client.list_resources()).resources
        uris = [str(resource.uri) for resource in resources]
        assert uris == [f"mockserver://scenarios/{name}" for name in shipped] + [
            "mockserver://docs/scenario-format"
        ]
        held = await client.read_resource("mockserver://scenarios/legal_hold")
        [content] = held.contents
        assert yaml.safe_load(content.text)["name"] == "legal_hold"
        reference = await client.read_resource("mockserver://docs/scenario-format")
        [content] = reference.contents
        assert content.text.startswith("# Scenario format")
        assert '"$schema"' in content.text  # the JSON Schema comes with it
