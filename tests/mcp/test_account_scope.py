"""A server scoped to one account (`?account=ID` on `/_mock/mcp`, `--account ID` for stdio)
acts in that account's sandbox alone: it cannot read or change another account or the
server-wide state, and does not list the tools that have no account form."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx
import pytest
from mcp import Client

from mockserver.testing.live import LiveServer
from tests.mcp.conftest import over_http, over_stdio
from tests.mcp.test_session import ok, refused
from tests.mcp.test_tools_listed import ALL
from tests.support.cli import MOCKSERVER
from tests.support.keys import auth

pytestmark = pytest.mark.anyio

SERVER_ONLY = {"account_create", "account_delete", "accounts_list"}
CLOCK = {"clock_advance", "clock_set"}
START = "2030-01-01T00:00:00Z"
FAILING_WHOAMI = """
name: whoami-down
rules:
  - name: down
    match: {path: /v1/whoami}
    respond: {status: 503, error: {type: api_error, message: Down for the test.}}
"""

Session = Callable[[str, str], AbstractAsyncContextManager[Client]]


def scoped_http(base_url: str, account: str) -> AbstractAsyncContextManager[Client]:
    return over_http(f"{base_url}/_mock/mcp?account={account}")


def scoped_stdio(base_url: str, account: str) -> AbstractAsyncContextManager[Client]:
    return over_stdio("--url", base_url, "--account", account)


@pytest.fixture(params=["http", "stdio"])
def scoped(request: pytest.FixtureRequest) -> Session:
    return scoped_http if request.param == "http" else scoped_stdio


def made(mock: httpx.Client, name: str, own_clock: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if own_clock:
        body["clock"] = {"mode": "frozen", "start_time": START}
    answer = mock.post("/_mock/accounts", json=body)
    assert answer.status_code == 201, answer.text
    account: dict[str, Any] = answer.json()
    return account


def vault(mock: httpx.Client, key: str) -> str:
    answer = mock.post("/v1/vaults", json={"name": "v", "region": "us"}, headers=auth(key))
    assert answer.status_code == 201, answer.text
    found: str = answer.json()["id"]
    return found


async def test_an_account_scoped_session_stays_in_its_account(
    server: LiveServer, mock: httpx.Client, scoped: Session
) -> None:
    mine, theirs = made(mock, "scope-mine"), made(mock, "scope-theirs")
    their_key, my_key = theirs["keys"]["full"], mine["keys"]["full"]
    their_vault = vault(mock, their_key)
    their_request = mock.get("/v1/whoami", headers=auth(their_key)).headers["x-request-id"]
    server_request = mock.get("/v1/whoami", headers=auth()).headers["x-request-id"]
    async with scoped(server.base_url, mine["id"]) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names == [name for name in ALL if name not in SERVER_ONLY]
        status = await ok(client, "status")
        assert status["scope"] == f"account {mine['id']}"
        assert status["account"]["keys"]["full"] == my_key

        # API requests carry the account's key, and only its keys.
        whoami = await ok(client, "api_request", method="GET", path="/v1/whoami")
        assert whoami["body"]["account_id"] == mine["id"]
        for key in (their_key, "sk_test_mock_full"):
            foreign = await refused(client, "api_request", method="GET", path="/v1/whoami", key=key)
            assert foreign["error"]["error"]["param"] == "key"

        # The journal is the account's alone.
        listed = await ok(client, "requests_list")
        assert {entry["account"] for entry in listed["requests"]} == {mine["id"]}
        for other in (their_request, server_request):
            missing = await refused(client, "request_explain", request_id=other)
            assert missing["status"] == 404
        stray = await refused(client, "requests_list", account=theirs["id"])
        assert stray["error"]["error"]["param"] == "account"
        everything = await ok(client, "requests_verify", matcher={"path": "/v1/whoami"}, count=1)
        assert everything["ok"] is True  # its one whoami, none of the others

        # Holds and redelivery reach its own objects only.
        for document in ("doc_mock_draft", their_vault):
            missing = await refused(client, "legal_hold", document_id=document)
            assert missing["status"] == 404
        event = await refused(client, "event_trigger", type="vault.created", key=their_key)
        assert event["error"]["error"]["param"] == "key"
        triggered = await ok(client, "event_trigger", type="vault.created")
        assert triggered["event_type"] == "vault.created"

        # Its scenarios, clock, snapshots and reset are its own.
        await ok(client, "scenario_load", yaml=FAILING_WHOAMI, source="whoami-down.yaml")
        down = await refused(client, "api_request", method="GET", path="/v1/whoami")
        assert down["status"] == 503
        assert "scenario" in down["hint"]
        assert mock.get("/v1/whoami", headers=auth(their_key)).status_code == 200
        assert mock.get("/v1/whoami", headers=auth()).status_code == 200
        moved = await ok(client, "clock_advance", seconds=600)
        assert moved["now"] == "2030-01-01T00:10:00Z"
        assert mock.get("/_mock/clock").json()["now"] == "2026-01-15T09:00:00Z"
        their_clock = mock.get(f"/_mock/accounts/{theirs['id']}").json()["clock"]["now"]
        assert their_clock == START
        await ok(client, "snapshot_save", name="mine")
        assert mock.get("/_mock/snapshots").json()["data"] == []
        await ok(client, "reset")
        assert mock.get(f"/v1/vaults/{their_vault}", headers=auth(their_key)).status_code == 200
        assert mock.get("/_mock/requests", params={"account": theirs["id"]}).json()["data"]
        assert mock.get("/_mock/scenarios").json()["data"] == []

        # Tools without an account form are not there to call.
        for name in SERVER_ONLY:
            gone = await refused(client, name, account_id=theirs["id"])
            assert gone["status"] == 404
    assert mock.get(f"/_mock/accounts/{theirs['id']}").status_code == 200


async def test_an_account_on_the_server_clock_has_no_clock_tools(
    server: LiveServer, mock: httpx.Client, scoped: Session
) -> None:
    follower = made(mock, "scope-follower", own_clock=False)
    async with scoped(server.base_url, follower["id"]) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == set(ALL) - SERVER_ONLY - CLOCK
        status = await ok(client, "status")
        assert status["account"]["clock"]["own"] is False
        moved = await refused(client, "clock_advance", seconds=60)
        assert moved["status"] == 409
    assert mock.get("/_mock/clock").json()["now"] == "2026-01-15T09:00:00Z"


async def test_an_unknown_account_is_refused(server: LiveServer, mock: httpx.Client) -> None:
    answer = mock.post(
        "/_mock/mcp?account=acct_nowhere",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": "application/json, text/event-stream"},
    )
    assert answer.status_code == 404
    assert answer.json()["error"]["param"] == "account"
    command = [*MOCKSERVER, "mcp", "--url", server.base_url, "--account", "acct_nowhere"]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2
    assert "acct_nowhere" in done.stderr
