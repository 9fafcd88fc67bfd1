"""A coding agent's session through the MCP tools: load a scenario, make calls, move the clock,
explain a refused request, verify, snapshot and restore, with every effect seen through `/v1`
and `/_mock` by a plain HTTP client; over streamable HTTP, over stdio driving the same
server (`--url`), and over stdio with a sandbox of its own."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from mockserver.testing import WebhookReceiver
from mockserver.testing.live import LiveServer
from tests.mcp.conftest import over_http, over_stdio, text
from tests.support.keys import auth

pytestmark = pytest.mark.anyio

HELD = "doc_qa_held_contract"  # the legal_hold scenario's contract, released after an hour


async def ok(client: Client, tool: str, /, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error is False, text(result)
    assert json.loads(text(result)) is not None
    found: dict[str, Any] = result.structured_content
    return found


async def refused(client: Client, tool: str, /, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error is True, text(result)
    assert "Hint: " in text(result)
    found: dict[str, Any] = result.structured_content
    return found


async def agent_session(client: Client, mock: httpx.Client | None) -> None:
    """The session; `mock` (when the server is reachable) sees each effect from outside."""
    status = await ok(client, "status")
    assert status["clock"]["now"] == "2026-01-15T09:00:00Z"
    assert status["scenarios_loaded"] == []

    await ok(client, "scenario_load", name="legal_hold")
    if mock is not None:
        loaded = mock.get("/_mock/scenarios").json()["data"]
        assert [item["name"] for item in loaded] == ["legal_hold"]

    deleted = await refused(client, "api_request", method="DELETE", path=f"/v1/documents/{HELD}")
    assert deleted["status"] == 409
    assert deleted["error"]["error"]["type"] == "conflict"
    assert "check=state" in deleted["hint"]
    assert "hold=True" in deleted["hint"]
    request_id = deleted["answer"]["request_id"]
    explained = await ok(client, "request_explain", request_id=request_id)
    assert explained["refused"] is True
    assert explained["request_id"] == request_id
    assert explained["explain"]["check"] == "state"
    assert explained["explain"]["hold"] is True
    assert explained["response_body"]["error"]["request_id"] == request_id
    by_seq = await ok(client, "request_explain", seq=explained["seq"])
    assert by_seq["request_id"] == request_id

    moved = await ok(client, "clock_advance", seconds=3600)
    assert moved["now"] == "2026-01-15T10:00:00Z"
    if mock is not None:
        assert mock.get("/_mock/clock").json()["now"] == "2026-01-15T10:00:00Z"
    gone = await ok(client, "api_request", method="DELETE", path=f"/v1/documents/{HELD}")
    assert gone["status"] in (200, 204)
    if mock is not None:
        assert mock.get(f"/v1/documents/{HELD}", headers=auth()).status_code == 404

    deletes = {"method": "DELETE", "path": "/v1/documents/{id}"}
    verified = await ok(client, "requests_verify", matcher=deletes, count=2)
    assert verified == {"ok": True, "matched": 2, "near_misses": []}
    missed = await ok(client, "requests_verify", matcher={**deletes, "status": 200}, count=2)
    assert missed["ok"] is False
    assert missed["near_misses"][0]["differences"][0]["field"] == "status"
    listed = await ok(client, "requests_list", method="DELETE")
    assert [entry["status"] for entry in listed["requests"]] == [gone["status"], 409]
    assert listed["requests"][1]["request_id"] == request_id

    await ok(client, "snapshot_save", name="before-vault")
    made = await ok(
        client, "api_request", method="POST", path="/v1/vaults", body={"name": "x", "region": "us"}
    )
    vault = made["body"]["id"]
    if mock is not None:
        assert mock.get(f"/v1/vaults/{vault}", headers=auth()).status_code == 200
    assert [s["name"] for s in (await ok(client, "snapshots_list"))["data"]] == ["before-vault"]
    await ok(client, "snapshot_restore", name="before-vault")
    after = await refused(client, "api_request", method="GET", path=f"/v1/vaults/{vault}")
    assert after["status"] == 404
    if mock is not None:
        assert mock.get(f"/v1/vaults/{vault}", headers=auth()).status_code == 404

    held = await ok(client, "legal_hold", document_id="doc_mock_signed")
    assert held == {"id": "doc_mock_signed", "legal_hold": True}
    if mock is not None:
        document = mock.get("/v1/documents/doc_mock_signed", headers=auth()).json()
        assert document["legal_hold"] is True

    assert (await ok(client, "scenario_unload"))["unloaded"] == 1
    if mock is not None:
        assert mock.get("/_mock/scenarios").json()["data"] == []
    reset = await ok(client, "reset")
    assert reset["clock"]["now"] == "2026-01-15T09:00:00Z"
    if mock is not None:
        assert mock.get("/_mock/requests").json()["data"] == []


async def test_a_session_over_http(server: LiveServer, mock: httpx.Client) -> None:
    async with over_http(f"{server.base_url}/_mock/mcp") as client:
        await agent_session(client, mock)


async def test_a_session_over_stdio_drives_a_running_server(
    server: LiveServer, mock: httpx.Client
) -> None:
    async with over_stdio("--url", server.base_url) as client:
        await agent_session(client, mock)


async def test_a_session_over_stdio_in_a_sandbox_of_its_own() -> None:
    async with over_stdio() as client:
        await agent_session(client, None)


async def test_events_deliveries_and_redelivery(server: LiveServer, mock: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        async with over_http(f"{server.base_url}/_mock/mcp") as client:
            await ok(
                client,
                "api_request",
                method="POST",
                path="/v1/webhook_endpoints",
                body={"url": receiver.url, "events": ["vault.created"]},
            )
            made = await ok(client, "event_trigger", type="vault.created")
            assert made["event_type"] == "vault.created"
            await anyio.to_thread.run_sync(receiver.wait_for, 1)
            listed = await ok(client, "deliveries_list", event_type="vault.created")
            [delivery] = listed["data"]
            assert delivery["event_id"] == made["event_ids"][0]
            await ok(client, "delivery_redeliver", delivery_id=delivery["id"])
            received = await anyio.to_thread.run_sync(receiver.wait_for, 2)
            assert len(received) == 2
            missing = await refused(client, "delivery_redeliver", delivery_id="dlv_nowhere")
            assert missing["status"] == 404
    journal = mock.get("/_mock/requests").json()["data"]
    agents = [(e["method"], e["path"], e["request"]["headers"]["user-agent"]) for e in journal]
    # The tool's own request, then the trigger's, each journaled like a client's.
    assert agents[-1] == ("POST", "/v1/webhook_endpoints", "mockserver-mcp/1")
    assert ("POST", "/us/v1/vaults", "mockserver-trigger/1") in agents
