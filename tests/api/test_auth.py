"""Keys, environments, scopes: every credential of the default seed through HTTP."""

from __future__ import annotations

import httpx
import pytest

from mockserver.domain.models import READ_SCOPES, SCOPES
from tests.support.api import assert_envelope
from tests.support.keys import EU, FULL, LIVE, READONLY, REVOKED, auth


@pytest.mark.parametrize(
    ("key", "account", "region", "environment", "scopes", "rate_limit"),
    [
        (FULL, "acct_mock_us", "us", "sandbox", sorted(SCOPES), 120),
        (READONLY, "acct_mock_us", "us", "sandbox", sorted(READ_SCOPES), 120),
        (EU, "acct_mock_eu", "eu", "sandbox", sorted(SCOPES), 120),
        (LIVE, "acct_mock_us", "us", "live", sorted(SCOPES), 600),
    ],
)
def test_whoami_for_every_valid_key(
    both: httpx.Client,
    key: str,
    account: str,
    region: str,
    environment: str,
    scopes: list[str],
    rate_limit: int,
) -> None:
    response = both.get("/v1/whoami", headers=auth(key))
    assert response.status_code == 200
    assert response.json() == {
        "account_id": account,
        "region": region,
        "environment": environment,
        "scopes": scopes,
        "rate_limit": rate_limit,
    }


def test_whoami_is_the_same_through_regional_hosts(api: httpx.Client) -> None:
    assert api.get("/eu/v1/whoami").json() == api.get("/v1/whoami").json()


def test_revoked_key_is_401(both: httpx.Client) -> None:
    error = assert_envelope(
        both.get("/v1/whoami", headers=auth(REVOKED)), 401, "authentication_error"
    )
    assert "revoked" in error["message"]
    assert REVOKED not in error["message"]  # never echo a full secret


@pytest.mark.parametrize(
    "header",
    [None, "", "Bearer", "Bearer ", "Basic abc", "sk_test_mock_full", "Bearer a b"],
)
def test_missing_or_malformed_authorization_is_401(api: httpx.Client, header: str | None) -> None:
    headers = {} if header is None else {"Authorization": header}
    api.headers.pop("Authorization")
    assert_envelope(api.get("/v1/documents", headers=headers), 401, "authentication_error")


def test_unknown_key_is_401(api: httpx.Client) -> None:
    error = assert_envelope(
        api.get("/v1/whoami", headers=auth("sk_test_nope_nope_nope")), 401, "authentication_error"
    )
    assert "Invalid API key" in error["message"]


def test_bearer_scheme_is_case_insensitive(api: httpx.Client) -> None:
    response = api.get("/v1/whoami", headers={"Authorization": f"bearer {FULL}"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "body", "scope"),
    [
        ("POST", "/v1/documents", {"title": "x", "vault_id": "vault_mock_us"}, "documents:write"),
        ("DELETE", "/v1/documents/doc_mock_draft", None, "documents:write"),
        ("POST", "/v1/vaults", {"name": "x", "region": "us"}, "vaults:write"),
    ],
)
def test_readonly_key_cannot_write(
    api: httpx.Client, method: str, path: str, body: object, scope: str
) -> None:
    response = api.request(method, path, json=body, headers=auth(READONLY))
    error = assert_envelope(response, 403, "permission_error")
    assert scope in error["message"]
    assert api.get("/v1/documents/doc_mock_draft").status_code == 200  # nothing changed


@pytest.mark.parametrize(
    "path",
    ["/v1/documents", "/v1/documents/doc_mock_draft", "/v1/vaults", "/v1/vaults/vault_mock_us"],
)
def test_readonly_key_can_read(api: httpx.Client, path: str) -> None:
    assert api.get(path, headers=auth(READONLY)).status_code == 200


def test_authentication_comes_before_validation_and_lookup(api: httpx.Client) -> None:
    api.headers.pop("Authorization")
    assert_envelope(api.post("/v1/documents", json={}), 401, "authentication_error")
    assert_envelope(api.get("/v1/documents/doc_nope"), 401, "authentication_error")
