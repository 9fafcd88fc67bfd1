"""Rules that can never fire are warned about, and a shipped scenario loaded into an account
acts and matches with that account's keys: over HTTP, in-process and on a real socket."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.keys import EU, FULL, auth

NEVER_FIRES = """\
name: never_fires
rules:
  - name: typo_key
    match: {method: POST, path: /v1/documents, key: sk_test_mock_fulll}
    respond: {status: 500}
  - name: typo_path
    match: {path: /v1/documnets}
    respond: {status: 500}
  - name: fine
    match: {method: GET, path: "/v1/documents/{id}", key: sk_test_mock_full}
    respond: {status: 503}
webhooks:
  - name: ghost
    endpoint: whk_nowhere
    fault: fail
"""


@pytest.fixture(params=["in-process", "socket"])
def mock(request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
    """A fresh server on a frozen clock, without a credential."""
    app = create_app(Settings(clock_mode="frozen"))
    if request.param == "in-process":
        with inprocess_client(app) as client:
            yield client
        return
    server = LiveServer(app).start()
    try:
        with httpx.Client(base_url=server.base_url) as client:
            yield client
    finally:
        server.stop()


def create(client: httpx.Client, key: str) -> int:
    body = {"title": "NDA", "vault_id": "vault_mock_us"}
    if key != FULL:
        vault = client.post("/v1/vaults", json={"name": "v", "region": "us"}, headers=auth(key))
        body["vault_id"] = vault.json()["id"]
    return client.post("/v1/documents", json=body, headers=auth(key)).status_code


def test_rate_limit_burst_in_an_account_binds_to_its_key(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={"clock": {"mode": "frozen"}}).json()
    key = made["keys"]["full"]
    base = f"/_mock/accounts/{made['id']}"
    loaded = mock.post(f"{base}/scenarios", json={"name": "rate_limit_burst"})
    assert loaded.status_code == 201, loaded.text
    assert "warnings" not in loaded.json()  # only when there are some
    assert [create(mock, key) for _ in range(4)] == [201, 201, 429, 429]
    # the server's own key is not in the account's burst
    assert [create(mock, FULL) for _ in range(3)] == [201, 201, 201]
    rules = mock.get(f"{base}/scenarios").json()["data"][0]["rules"]
    assert rules[0]["fired"] == 2


def test_key_revoked_mid_session_in_an_account_revokes_its_key(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={"clock": {"mode": "frozen"}}).json()
    key, readonly = made["keys"]["full"], made["keys"]["readonly"]
    base = f"/_mock/accounts/{made['id']}"
    assert mock.post(f"{base}/scenarios", json={"name": "key_revoked_mid_session"}).is_success
    assert mock.get("/v1/vaults", headers=auth(key)).status_code == 200
    mock.post(f"{base}/clock/advance", json={"seconds": 301})
    assert mock.get("/v1/vaults", headers=auth(key)).status_code == 401
    assert mock.get("/v1/vaults", headers=auth(readonly)).status_code == 200
    assert mock.get("/v1/vaults", headers=auth(FULL)).status_code == 200  # the server's


def test_rules_that_never_fire_load_with_warnings(mock: httpx.Client) -> None:
    loaded = mock.post("/_mock/scenarios", json={"yaml": NEVER_FIRES, "source": "qa.yaml"})
    assert loaded.status_code == 201, loaded.text
    warnings: list[dict[str, Any]] = loaded.json()["warnings"]
    assert [(w["line"], w["severity"]) for w in warnings] == [
        (4, "warning"),
        (7, "warning"),
        (14, "warning"),
    ]
    assert "no key 'sk_test_mock_fulll'" in warnings[0]["message"]
    assert "did you mean 'sk_test_mock_full'?" in warnings[0]["message"]
    assert "no endpoint serves /v1/documnets" in warnings[1]["message"]
    assert "did you mean '/v1/documents'?" in warnings[1]["message"]
    assert "no webhook endpoint 'whk_nowhere'" in warnings[2]["message"]
    listed = mock.get("/_mock/scenarios").json()["data"][0]
    assert listed["warnings"] == warnings
    overview = mock.get("/_mock/ui").text  # the inspector lists them under the scenario
    assert 'data-testid="scenario-warnings"' in overview
    assert "line 7: rules[1].match.path: no endpoint serves /v1/documnets" in overview
    # the rules are armed all the same: the one that can fire does
    got = mock.get("/v1/documents/doc_mock_draft", headers=auth())
    assert got.status_code == 503


def test_a_seed_key_an_account_lacks_is_a_warning_there(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={}).json()
    text = (
        f"name: eu_only\nrules:\n  - name: r\n    match: {{key: {EU}}}\n"
        "    respond: {status: 500}\n"
    )
    base = f"/_mock/accounts/{made['id']}"
    warnings = mock.post(f"{base}/scenarios", json={"yaml": text}).json()["warnings"]
    assert len(warnings) == 1
    assert f"no key '{EU}' in account {made['id']}" in warnings[0]["message"]
    # the same file on the server, whose seed has the key: nothing to say
    assert "warnings" not in mock.post("/_mock/scenarios", json={"yaml": text}).json()


def test_a_mistyped_scenario_name_suggests_the_closest(mock: httpx.Client) -> None:
    answer = mock.post("/_mock/scenarios", json={"name": "legal_hole"})
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["param"] == "name"
    assert "Did you mean 'legal_hold'?" in error["message"]
    assert mock.get("/_mock/scenarios").json()["data"] == []


def test_a_fault_for_an_endpoint_made_through_the_api_is_not_warned_about(
    mock: httpx.Client,
) -> None:
    hook = {"url": "http://127.0.0.1:9/hooks", "events": ["vault.created"]}
    made = mock.post("/v1/webhook_endpoints", json=hook, headers=auth())
    assert made.status_code == 201, made.text
    text = (
        f"name: hooks\nwebhooks:\n  - name: f\n    endpoint: {made.json()['id']}\n"
        "    fault: fail\n  - name: g\n    endpoint: whk_missing_one\n    fault: fail\n"
    )
    warnings = mock.post("/_mock/scenarios", json={"yaml": text}).json()["warnings"]
    assert [w["line"] for w in warnings] == [7]
    assert "no webhook endpoint 'whk_missing_one'" in warnings[0]["message"]


def test_a_server_rule_for_an_accounts_key_is_not_warned_about(mock: httpx.Client) -> None:
    """The server's rules apply to its accounts' requests too: their keys are known there."""
    made = mock.post("/_mock/accounts", json={}).json()
    key = made["keys"]["full"]
    text = (
        f"name: theirs\nrules:\n  - name: r\n    match: {{key: {key}, path: /v1/vaults}}\n"
        "    respond: {status: 418}\n"
    )
    loaded = mock.post("/_mock/scenarios", json={"yaml": text}).json()
    assert "warnings" not in loaded
    assert mock.get("/v1/vaults", headers=auth(key)).status_code == 418
