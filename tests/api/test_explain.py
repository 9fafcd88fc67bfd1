"""`explain` on the journal's error entries: the check that refused each request, with its
fields, provoked over HTTP; and the opt-in `X-Mock-Explain` response header."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.api import assert_envelope, clock_advance
from tests.support.keys import READONLY, REVOKED, auth
from tests.support.oauth import bearer, token_for
from tests.support.scenarios import create_doc, load


def last_entry(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/_mock/requests", params={"limit": 1})
    assert response.status_code == 200, response.text
    entry: dict[str, Any] = response.json()["data"][0]
    return entry


def explain_of(client: httpx.Client) -> dict[str, Any]:
    explain: dict[str, Any] = last_entry(client)["explain"]
    return explain


def test_a_2xx_answer_has_explain_null(both: httpx.Client) -> None:
    assert both.get("/v1/whoami").status_code == 200
    entry = last_entry(both)
    assert "explain" in entry
    assert entry["explain"] is None


def test_a_read_only_key_writing_is_refused_by_scope(both: httpx.Client) -> None:
    refused = both.post("/v1/vaults", json={"name": "x", "region": "us"}, headers=auth(READONLY))
    error = assert_envelope(refused, 403, "permission_error")
    explain = explain_of(both)
    assert explain["check"] == "scope"
    assert explain["message"] == error["message"]
    assert explain["needed"] == "vaults:write"
    assert isinstance(explain["held"], list)
    assert explain["held"]
    assert "vaults:write" not in explain["held"]
    assert explain["held"] == sorted(explain["held"])


def test_an_eu_vault_read_through_the_us_host_names_both_regions(both: httpx.Client) -> None:
    refused = both.get("/v1/vaults/vault_mock_eu", headers={"Host": "us.localhost"})
    assert_envelope(refused, 404, "not_found")
    explain = explain_of(both)
    assert explain == {
        "check": "not_found",
        "message": "No such vault: 'vault_mock_eu'",
        "resource": "vault_mock_eu",
        "region": "eu",
        "routed_region": "us",
    }


def test_an_id_that_exists_nowhere_has_no_region(both: httpx.Client) -> None:
    both.get("/us/v1/documents/doc_nowhere")
    explain = explain_of(both)
    assert explain["check"] == "not_found"
    assert explain["resource"] == "doc_nowhere"
    assert "region" not in explain
    assert "routed_region" not in explain


def test_an_unknown_route_is_not_found_with_its_path(both: httpx.Client) -> None:
    both.get("/v1/nothing/here")
    explain = explain_of(both)
    assert explain["check"] == "not_found"
    assert explain["resource"] == "/v1/nothing/here"


def test_a_workflow_on_a_signed_document_is_refused_by_state(both: httpx.Client) -> None:
    refused = both.post(
        "/v1/workflows",
        json={"document_id": "doc_mock_signed", "steps": [{"assignee": "ana@example.com"}]},
    )
    assert_envelope(refused, 409, "conflict")
    explain = explain_of(both)
    assert explain["check"] == "state"
    assert explain["resource"] == "doc_mock_signed"
    assert explain["current"] == "signed"
    assert explain["allowed"] == ["draft"]


def test_deleting_a_held_document_names_the_hold(both: httpx.Client) -> None:
    held = both.post("/_mock/documents/doc_mock_draft/legal_hold", json={"on": True})
    assert held.status_code == 200
    assert_envelope(both.delete("/v1/documents/doc_mock_draft"), 409, "conflict")
    explain = explain_of(both)
    assert explain["check"] == "state"
    assert explain["resource"] == "doc_mock_draft"
    assert explain["hold"] is True


def test_a_replayed_key_with_another_title_differs_in_title(both: httpx.Client) -> None:
    key = {"Idempotency-Key": "explain-1"}
    first = create_doc(both, "First", **key)
    assert first.status_code == 201
    again = create_doc(both, "Second", **key)
    assert_envelope(again, 409, "conflict")
    explain = explain_of(both)
    assert explain["check"] == "idempotency"
    assert explain["key"] == "explain-1"
    assert explain["differs"] == ["/title"]


def test_a_replayed_key_on_another_path_differs_in_path(both: httpx.Client) -> None:
    key = {"Idempotency-Key": "explain-2"}
    assert create_doc(both, "Same", **key).status_code == 201
    body = {"title": "Same", "vault_id": "vault_mock_us"}
    again = both.post("/v1/vaults", json=body, headers=key)
    assert_envelope(again, 409, "conflict")
    assert explain_of(both)["differs"] == ["path"]


def test_the_same_request_again_is_replayed_without_explain(both: httpx.Client) -> None:
    key = {"Idempotency-Key": "explain-3"}
    assert create_doc(both, "Same", **key).status_code == 201
    assert create_doc(both, "Same", **key).headers["idempotent-replayed"] == "true"
    assert last_entry(both)["explain"] is None


def test_a_burst_past_the_limit_is_refused_by_rate_limit(both: httpx.Client) -> None:
    for _ in range(200):
        both.get("/v1/whoami")
    refused = both.get("/v1/whoami")
    assert_envelope(refused, 429, "rate_limit_error")
    explain = explain_of(both)
    assert explain["check"] == "rate_limit"
    assert explain["limit"] == 120
    assert explain["burst"] == 200
    assert explain["used"] == 200
    assert explain["retry_after"] == int(refused.headers["retry-after"]) == 60


def test_an_answer_injected_by_a_rule_names_rule_and_scenario(both: httpx.Client) -> None:
    load(
        both,
        """
        name: outage
        rules:
          - name: documents-down
            match: {method: POST, path: /v1/documents}
            respond: {status: 503, error: {type: api_error, message: Down for maintenance.}}
        """,
    )
    assert create_doc(both).status_code == 503
    assert explain_of(both) == {
        "check": "scenario",
        "message": "Down for maintenance.",
        "rule": "documents-down",
        "scenario": "outage",
    }


def test_a_forced_burst_names_its_rule(both: httpx.Client) -> None:
    load(
        both,
        """
        name: squeeze
        rules:
          - name: burst
            match: {path: /v1/whoami}
            respond: {rate_limit_burst: {seconds: 30}}
        """,
    )
    assert both.get("/v1/whoami").status_code == 429
    explain = explain_of(both)
    assert (explain["check"], explain["rule"], explain["scenario"]) == (
        "scenario",
        "burst",
        "squeeze",
    )
    assert explain["retry_after"] == 30


def test_authentication_reasons(both: httpx.Client) -> None:
    reasons = []
    for headers in (
        {"Authorization": ""},
        {"Authorization": "Token abc"},
        auth("sk_test_nobody_at_all"),
        auth(REVOKED),
    ):
        assert_envelope(both.get("/v1/whoami", headers=headers), 401, "authentication_error")
        explain = explain_of(both)
        assert explain["check"] == "authentication"
        reasons.append(explain["reason"])
    assert reasons == ["missing", "malformed", "unknown", "revoked"]


def test_an_expired_oauth_token_is_expired(api: httpx.Client) -> None:
    token = token_for(api)
    clock_advance(api, 3601)
    assert_envelope(api.get("/v1/whoami", headers=bearer(token)), 401, "authentication_error")
    assert explain_of(api)["reason"] == "expired"


def test_validation_names_the_param(both: httpx.Client) -> None:
    refused = both.post("/v1/documents", json={"title": "", "vault_id": "vault_mock_us"})
    error = assert_envelope(refused, 422, "validation_error")
    assert explain_of(both) == {
        "check": "validation",
        "message": error["message"],
        "param": "title",
    }


def test_malformed_bodies_and_queries_are_request_errors(both: httpx.Client) -> None:
    bad_json = both.post(
        "/v1/documents", content=b"{nope", headers={"Content-Type": "application/json"}
    )
    assert_envelope(bad_json, 400, "bad_request")
    assert explain_of(both)["check"] == "request"
    too_big = both.post(
        "/v1/documents",
        content=b"[" + b"1," * 600_000 + b"1]",
        # answered before the body is read: a new connection for what follows
        headers={"Content-Type": "application/json", "Connection": "close"},
    )
    assert too_big.status_code == 413
    assert explain_of(both)["check"] == "request"
    assert both.get("/v1/documents?limit=%zz").status_code == 400
    assert explain_of(both)["check"] == "request"


def test_the_header_is_sent_only_when_asked(both: httpx.Client) -> None:
    plain = both.get("/v1/documents/doc_nowhere")
    assert "x-mock-explain" not in plain.headers
    asked = both.get("/v1/documents/doc_nowhere", headers={"X-Mock-Explain": "1"})
    assert asked.headers["x-mock-explain"] == "not_found: No such document: 'doc_nowhere'"
    ok = both.get("/v1/whoami", headers={"X-Mock-Explain": "1"})
    assert "x-mock-explain" not in ok.headers


def test_the_header_is_one_ascii_line(both: httpx.Client) -> None:
    asked = both.get("/v1/documents/d\u00e9j\u00e0%0Avu", headers={"X-Mock-Explain": "1"})
    value = asked.headers["x-mock-explain"]
    assert value.isascii()
    assert "\n" not in value
    assert value.startswith("not_found: No such document: 'd?j? vu'")


def test_the_header_on_an_injected_answer(both: httpx.Client) -> None:
    load(
        both,
        """
        name: outage
        rules:
          - name: down
            match: {path: /v1/whoami}
            respond: {status: 503}
        """,
    )
    asked = both.get("/v1/whoami", headers={"X-Mock-Explain": "1"})
    assert asked.headers["x-mock-explain"] == "scenario: Injected by scenario rule 'down'."
    assert "x-mock-explain" not in both.get("/v1/whoami").headers


def test_a_kept_error_replayed_has_no_header_unless_asked(both: httpx.Client) -> None:
    key = {"Idempotency-Key": "explain-4"}
    body = {"title": "x", "vault_id": "vault_nowhere"}
    first = both.post("/v1/documents", json=body, headers={**key, "X-Mock-Explain": "1"})
    assert first.status_code == 404
    assert "x-mock-explain" in first.headers
    again = both.post("/v1/documents", json=body, headers=key)
    assert again.headers["idempotent-replayed"] == "true"
    assert "x-mock-explain" not in again.headers
    explain = explain_of(both)  # a replayed error: explained from its envelope
    assert explain["check"] == "not_found"
    assert explain["message"] == first.json()["error"]["message"]
    asked = both.post("/v1/documents", json=body, headers={**key, "X-Mock-Explain": "1"})
    assert asked.headers["idempotent-replayed"] == "true"
    assert asked.headers["x-mock-explain"] == first.headers["x-mock-explain"]
    assert asked.content == again.content
