"""With a state directory, the tools' requests are logged like any client's (the MCP request
itself is not, so it never holds the log its tools' requests need): after a kill -9 and a
restart, what an agent did is there, once."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.mcp.conftest import over_http
from tests.mcp.test_session import ok
from tests.support.durable import DurableServer

pytestmark = pytest.mark.anyio


async def test_an_agents_changes_survive_a_restart(tmp_path: Path) -> None:
    durable = DurableServer(tmp_path / "state", "--clock", "frozen")
    mock = durable.start()
    try:
        url = f"http://127.0.0.1:{durable.port}/_mock/mcp"
        with anyio.fail_after(60):
            async with over_http(url) as client:
                made = await ok(
                    client,
                    "api_request",
                    method="POST",
                    path="/v1/vaults",
                    body={"name": "kept", "region": "us"},
                    headers={"Idempotency-Key": "agent-vault"},
                )
                await ok(client, "clock_advance", seconds=120)
                await ok(client, "legal_hold", document_id="doc_mock_draft")
        vault = made["body"]["id"]
        durable.kill()
        mock = durable.start()
        assert mock.get(f"/v1/vaults/{vault}").status_code == 200
        named = [v for v in mock.get("/v1/vaults").json()["data"] if v["name"] == "kept"]
        assert len(named) == 1
        assert mock.get("/_mock/clock").json()["now"] == "2026-01-15T09:02:00Z"
        assert mock.get("/v1/documents/doc_mock_draft").json()["legal_hold"] is True
    finally:
        durable.stop()
