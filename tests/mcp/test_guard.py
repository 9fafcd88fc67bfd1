"""`/_mock/mcp` is guarded like every `/_mock` path: a web page's request (a foreign Origin) is
403 before anything runs, and with an admin token every MCP request needs it (and the tools'
own requests carry it). Without the MCP SDK the path is 404 and `mockserver mcp` exits 2, each
naming the extra."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from mockserver.cli import agents as agents_cli
from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer
from mockserver.web import control
from mockserver.web.app import create_app
from tests.mcp.conftest import over_http, over_stdio
from tests.mcp.test_session import ok, refused
from tests.support.api import assert_envelope

TOKEN = "s3cret-for-mcp"
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def guarded() -> Iterator[LiveServer]:
    server = LiveServer(create_app(Settings(clock_mode="frozen", admin_token=TOKEN))).start()
    yield server
    server.stop()


def test_a_foreign_origin_is_refused(mock: httpx.Client) -> None:
    for origin in ("https://evil.example", "null"):
        answer = mock.post("/_mock/mcp", json=LIST, headers={**ACCEPT, "origin": origin})
        assert assert_envelope(answer, 403, "permission_error")["param"] == "Origin"
    cross = mock.post("/_mock/mcp", json=LIST, headers={**ACCEPT, "sec-fetch-site": "cross-site"})
    assert_envelope(cross, 403, "permission_error")
    local = mock.post(
        "/_mock/mcp", json=LIST, headers={**ACCEPT, "origin": "http://localhost:3000"}
    )
    assert local.status_code == 200, local.text


def test_the_admin_token_is_required_when_set(guarded: LiveServer) -> None:
    with httpx.Client(base_url=guarded.base_url) as plain:
        missing = plain.post("/_mock/mcp", json=LIST, headers=ACCEPT)
        assert_envelope(missing, 401, "authentication_error")
        wrong = plain.post("/_mock/mcp", json=LIST, headers={**ACCEPT, "x-mock-admin-token": "x"})
        assert_envelope(wrong, 401, "authentication_error")


@pytest.mark.anyio
async def test_with_the_token_the_tools_work(guarded: LiveServer) -> None:
    headers = {"x-mock-admin-token": TOKEN}
    async with over_http(f"{guarded.base_url}/_mock/mcp", headers) as client:
        moved = await ok(client, "clock_advance", seconds=5)
        assert moved["now"] == "2026-01-15T09:00:05Z"
    async with over_stdio("--url", guarded.base_url, "--admin-token", TOKEN) as client:
        assert (await ok(client, "status"))["clock"]["now"] == "2026-01-15T09:00:05Z"
    async with over_stdio("--url", guarded.base_url) as client:
        denied = await refused(client, "status")
        assert denied["status"] == 401
        assert "--admin-token" in denied["hint"]


def test_without_the_extra_the_path_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "find_spec", lambda name: None)
    with inprocess_client(create_app(Settings(clock_mode="frozen"))) as client:
        answer = client.post("/_mock/mcp", json=LIST, headers=ACCEPT)
    error = assert_envelope(answer, 404, "not_found")
    assert "mockserver[mcp]" in error["message"]


def test_without_the_extra_the_command_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(agents_cli, "find_spec", lambda name: None)
    assert main(["mcp"]) == 2
    assert "mockserver[mcp]" in capsys.readouterr().err
