"""The control plane reads its body as JSON whatever the Content-Type says; /v1 does not."""

from __future__ import annotations

import httpx
import pytest

from tests.support.api import assert_envelope

FORM = {"Content-Type": "application/x-www-form-urlencoded"}  # what `curl -d` sends


@pytest.mark.parametrize(
    "headers",
    [FORM, {"Content-Type": "text/plain; charset=utf-8"}, {}, {"Content-Type": "application/json"}],
)
def test_a_scenario_loads_from_a_curl_style_body(
    both: httpx.Client, headers: dict[str, str]
) -> None:
    response = both.post("/_mock/scenarios", content=b'{"name": "legal_hold"}', headers=headers)
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "legal_hold"


def test_the_clock_and_legal_holds_take_form_typed_json(api: httpx.Client) -> None:
    moved = api.post("/_mock/clock/advance", content=b'{"seconds": 60}', headers=FORM)
    assert moved.status_code == 200, moved.text
    assert moved.json()["now"] == "2026-01-15T09:01:00Z"
    held = api.post(
        "/_mock/documents/doc_mock_draft/legal_hold", content=b'{"on": true}', headers=FORM
    )
    assert held.json() == {"id": "doc_mock_draft", "legal_hold": True}
    assert api.get("/v1/documents/doc_mock_draft").json()["legal_hold"] is True


def test_a_real_form_body_is_still_not_json(api: httpx.Client) -> None:
    response = api.post("/_mock/clock/advance", content=b"seconds=60", headers=FORM)
    assert "Invalid JSON" in assert_envelope(response, 400, "bad_request")["message"]


def test_v1_still_refuses_a_form_typed_json_body(api: httpx.Client) -> None:
    body = b'{"title": "t", "vault_id": "vault_mock_us"}'
    response = api.post("/v1/documents", content=body, headers=FORM)
    error = assert_envelope(response, 400, "bad_request")
    assert error["message"] == (
        "Unsupported Content-Type 'application/x-www-form-urlencoded'. "
        "Send the body as application/json."
    )
