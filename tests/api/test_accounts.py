"""`POST /_mock/accounts`: fresh isolated accounts with their keys."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mockserver.domain.models import READ_SCOPES, SCOPES
from tests.support.api import assert_envelope
from tests.support.keys import auth


def new_account(client: httpx.Client, **body: Any) -> dict[str, Any]:
    response = client.post("/_mock/accounts", json=body) if body else client.post("/_mock/accounts")
    assert response.status_code == 201, response.text
    account: dict[str, Any] = response.json()
    return account


def test_a_new_account_has_keys_users_and_an_empty_sandbox(both: httpx.Client) -> None:
    account = new_account(both)
    assert account["id"].startswith("acct_")
    assert account["default_region"] == "us"
    assert account["environment"] == "sandbox"
    full, readonly = account["keys"]["full"], account["keys"]["readonly"]
    assert full.startswith("sk_test_")
    assert readonly.startswith("sk_test_")
    who = both.get("/v1/whoami", headers=auth(full)).json()
    assert who == {
        "account_id": account["id"],
        "region": "us",
        "environment": "sandbox",
        "scopes": sorted(SCOPES),
        "rate_limit": 120,
    }
    assert both.get("/v1/whoami", headers=auth(readonly)).json()["scopes"] == sorted(READ_SCOPES)
    assert both.get("/v1/vaults", headers=auth(full)).json()["data"] == []
    assert both.get("/v1/documents", headers=auth(full)).json()["data"] == []
    assert [u["permissions"] for u in account["users"]] == [list(SCOPES), list(READ_SCOPES)]


def test_its_data_is_isolated(both: httpx.Client) -> None:
    account = new_account(both, region="eu", name="Parallel test")
    key = account["keys"]["full"]
    assert account["name"] == "Parallel test"
    vault = both.post("/v1/vaults", json={"name": "mine", "region": "eu"}, headers=auth(key))
    assert vault.status_code == 201
    vault_id = vault.json()["id"]
    assert both.get(f"/v1/vaults/{vault_id}", headers=auth(key)).status_code == 200
    assert_envelope(both.get(f"/eu/v1/vaults/{vault_id}"), 404, "not_found")
    assert_envelope(both.get("/eu/v1/vaults/vault_mock_eu", headers=auth(key)), 404, "not_found")
    readonly = account["keys"]["readonly"]
    denied = both.post("/v1/vaults", json={"name": "x", "region": "eu"}, headers=auth(readonly))
    assert_envelope(denied, 403, "permission_error")
    audit = both.get("/v1/audit_logs", headers=auth(key)).json()["data"]
    assert [e["actor"] for e in audit] == [account["users"][0]["email"]]


def test_accounts_are_distinct_deterministic_and_gone_after_reset(api: httpx.Client) -> None:
    first, second = new_account(api), new_account(api)
    assert first["id"] != second["id"]
    assert first["keys"]["full"] != second["keys"]["full"]
    api.post("/_mock/reset")
    assert_envelope(
        api.get("/v1/whoami", headers=auth(first["keys"]["full"])), 401, "authentication_error"
    )
    assert new_account(api) == first  # the same calls give the same accounts


@pytest.mark.parametrize(
    ("body", "param"),
    [({"region": "mars"}, "region"), ({"name": ""}, "name"), ({"name": 3}, "name")],
)
def test_bad_bodies(api: httpx.Client, body: dict[str, Any], param: str) -> None:
    error = assert_envelope(api.post("/_mock/accounts", json=body), 422, "validation_error")
    assert error["param"] == param
    assert_envelope(api.post("/_mock/accounts", content=b"[1]"), 400, "bad_request")
