"""`/_mock/mcp` answers `POST` only: the server is stateless and offers no event stream, so a
`GET` (an MCP client's attempt to open one), a `DELETE` (ending a session) and any other method
are 405 with `Allow: POST` at once, as the MCP transport specifies, over a real socket and
in-process; and nothing of the sandbox changes."""

from __future__ import annotations

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream"}


def assert_not_allowed(answer: httpx.Response, method: str) -> None:
    assert answer.status_code == 405, answer.text
    assert answer.headers["allow"] == "POST"
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()
    assert error["jsonrpc"] == "2.0"
    assert error["error"]["code"] == -32600
    assert f"Method Not Allowed: {method}." in error["error"]["message"]
    assert "x-request-id" in answer.headers


@pytest.mark.parametrize("accept", ["text/event-stream", "*/*"])
def test_a_get_is_refused_at_once_over_a_socket(mock: httpx.Client, accept: str) -> None:
    # The whole answer within the client's timeout: before, the stream stayed open for good.
    with httpx.Client(base_url=str(mock.base_url), timeout=10) as client:
        answer = client.get("/_mock/mcp", headers={"accept": accept})
    assert_not_allowed(answer, "GET")


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH", "HEAD"])
def test_every_other_method_is_refused(mock: httpx.Client, method: str) -> None:
    answer = mock.request(method, "/_mock/mcp", headers=ACCEPT)
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"
    if method != "HEAD":
        assert_not_allowed(answer, method)


def test_post_still_serves_and_a_refusal_changes_nothing() -> None:
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app) as client:
        before = client.get("/_mock/requests").json()["total"]
        assert_not_allowed(client.get("/_mock/mcp", headers=ACCEPT), "GET")
        assert_not_allowed(client.delete("/_mock/mcp", headers=ACCEPT), "DELETE")
        assert client.get("/_mock/requests").json()["total"] == before  # no tool ran
        started = client.post("/_mock/mcp", json=INITIALIZE, headers=ACCEPT)
        assert started.status_code == 200, started.text
        assert started.json()["result"]["serverInfo"]["name"]
