"""The guide's worked session: a scenario loses the answer to a create (the request ran, the
connection closed); the agent sees the broken connection as a tool error saying the request
was committed, finds it in the journal, and checks that a retry with an Idempotency-Key makes
one document, not two. Over streamable HTTP (the tools' requests in-process) and over stdio
driving the server over the network."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import httpx
import pytest
from mcp import Client

from mockserver.testing.live import LiveServer
from tests.mcp.conftest import over_http, over_stdio
from tests.mcp.test_session import ok, refused
from tests.support.keys import auth

pytestmark = pytest.mark.anyio

LOSSY = """
name: lossy
rules:
  - name: lost-create
    match: {method: POST, path: /v1/documents, times: 1}
    respond: {fault: drop_after_commit}
"""
CREATE = {"title": "Retried", "vault_id": "vault_mock_us"}


@pytest.fixture(params=["http", "stdio"])
def session(
    request: pytest.FixtureRequest, server: LiveServer
) -> Callable[[], AbstractAsyncContextManager[Client]]:
    if request.param == "http":
        return lambda: over_http(f"{server.base_url}/_mock/mcp")
    return lambda: over_stdio("--url", server.base_url)


async def test_a_lost_answer_is_a_committed_broken_connection(
    session: Callable[[], AbstractAsyncContextManager[Client]], mock: httpx.Client
) -> None:
    key = {"Idempotency-Key": "retry-once"}
    async with session() as client:
        await ok(client, "scenario_load", yaml=LOSSY)
        lost = await refused(
            client, "api_request", method="POST", path="/v1/documents", body=CREATE, headers=key
        )
        error = lost["error"]["error"]
        assert error["type"] == "connection_broken"
        assert (error["fault"], error["committed"]) == ("drop_after_commit", True)
        assert "Idempotency-Key" in lost["hint"]
        [entry] = (await ok(client, "requests_list", method="POST"))["requests"]
        assert (entry["fault"], entry["committed"], entry["status"]) == (
            "drop_after_commit",
            True,
            201,
        )
        explained = await ok(client, "request_explain", seq=entry["seq"])
        assert explained["explain"]["check"] == "scenario"
        assert explained["refused"] is False  # it ran: only its answer was lost
        retried = await ok(
            client, "api_request", method="POST", path="/v1/documents", body=CREATE, headers=key
        )
        assert retried["status"] == 201
        verified = await ok(
            client,
            "requests_verify",
            matcher={"method": "POST", "path": "/v1/documents", "headers": key},
            count=2,
        )
        assert verified["ok"] is True
    titles = [d["title"] for d in mock.get("/v1/documents", headers=auth()).json()["data"]]
    assert titles.count("Retried") == 1
