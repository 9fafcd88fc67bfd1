"""Bad arguments come back as tool errors a model can act on (`isError`, the mock's envelope
with `param`, a hint), never as a protocol failure or a 500, and change nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.testing.live import LiveServer
from tests.mcp.conftest import over_http
from tests.mcp.test_session import refused

pytestmark = pytest.mark.anyio

CASES: list[tuple[str, dict[str, Any], int, str | None]] = [
    ("clock_advance", {"seconds": -5}, 422, "seconds"),
    ("clock_advance", {"seconds": "soon"}, 422, "seconds"),
    ("clock_advance", {}, 422, "seconds"),
    ("clock_advance", {"seconds": 1e12}, 422, "seconds"),
    ("clock_set", {"at": "yesterday"}, 422, "at"),
    ("scenario_load", {"name": "no_such_scenario"}, 404, "name"),
    ("scenario_load", {}, 422, "name"),
    ("scenario_load", {"name": "legal_hold", "yaml": "name: x"}, 422, "name"),
    ("scenario_load", {"name": ""}, 422, "name"),
    ("scenario_load", {"yaml": "rules: [", "source": "broken.yaml"}, 422, "yaml"),
    ("scenario_load", {"yaml": "name: x\nrules: [{match: 3}]"}, 422, "yaml"),
    ("requests_verify", {"matcher": {"method": 5}}, 422, "method"),
    ("requests_verify", {"matcher": {"colour": "red"}}, 422, "colour"),
    ("requests_verify", {"matcher": {}, "count": 1, "at_most": 2}, 422, "at_most"),
    ("requests_verify", {"count": -1}, 422, "count"),
    ("request_explain", {}, 422, "request_id"),
    ("request_explain", {"request_id": "req_nowhere"}, 404, "request_id"),
    ("api_request", {"method": "POST", "path": "/_mock/reset"}, 422, "path"),
    ("api_request", {"method": "TRACE", "path": "/v1/whoami"}, 422, "method"),
    ("api_request", {"method": "GET", "path": "/v1/whoami", "colour": 1}, 422, "colour"),
    ("api_request", {"path": "/v1/whoami"}, 422, "method"),
    ("api_request", {"method": "GET", "path": "/v1/whoami", "headers": {"x": 1}}, 422, "headers.x"),
    ("account_create", {"clock": {}}, 422, "clock.mode"),
    ("account_create", {"clock": {"mode": "frozen", "when": 1}}, 422, "clock.when"),
    ("snapshot_restore", {"name": "never-saved"}, 404, None),
    ("legal_hold", {"document_id": "doc_nowhere"}, 404, None),
    ("account_delete", {"account_id": "acct_mock_us"}, 409, None),
    ("event_trigger", {"type": "nothing.happened"}, 422, "type"),
    ("no_such_tool", {}, 404, "name"),
]


async def test_bad_arguments_are_tool_errors(
    served: tuple[Starlette, LiveServer], server: LiveServer, mock: httpx.Client
) -> None:
    app = served[0]
    before = mock.get("/_mock/clock").json()
    async with over_http(f"{server.base_url}/_mock/mcp") as client:
        for tool, arguments, status, param in CASES:
            found = await refused(client, tool, **arguments)
            assert found["status"] == status, (tool, arguments, found)
            envelope = found["error"]["error"]
            assert envelope["message"], (tool, arguments)
            if param is not None:
                assert envelope.get("param") == param, (tool, arguments, envelope)
        listed = await client.list_tools()  # the session is still fine
        assert listed.tools
    assert mock.get("/_mock/clock").json() == before
    assert mock.get("/_mock/scenarios").json()["data"] == []
    assert app.state.store.errors == []  # no 500 on the way
