"""The pipeline keeps the principal of an API key between requests: a key revoked or changed
in the store (a scenario's `revoke_key`, an account made by the control plane, a reset) must
answer at once as the new key says, never from what was kept."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.domain.models import ApiKey

KEY = "sk_test_mock_full"


@pytest.fixture
def key(fresh_app: Starlette) -> Iterator[ApiKey]:
    api_key: ApiKey = fresh_app.state.store.keys[KEY]
    saved = (api_key.revoked, api_key.scopes, api_key.rate_limit, api_key.burst, api_key.owner)
    yield api_key
    (api_key.revoked, api_key.scopes, api_key.rate_limit, api_key.burst, api_key.owner) = saved


def test_a_revoked_key_is_refused_at_once(api: httpx.Client, key: ApiKey) -> None:
    assert api.get("/v1/whoami").status_code == 200
    key.revoked = True
    response = api.get("/v1/whoami")
    assert response.status_code == 401
    assert "revoked" in response.json()["error"]["message"]


def test_changed_scopes_apply_at_once(api: httpx.Client, key: ApiKey) -> None:
    assert api.get("/v1/documents/doc_mock_draft").status_code == 200
    key.scopes = frozenset({"vaults:read"})
    assert api.get("/v1/documents/doc_mock_draft").status_code == 403
    assert api.get("/v1/whoami").json()["scopes"] == ["vaults:read"]


def test_a_changed_plan_applies_at_once(api: httpx.Client, key: ApiKey) -> None:
    assert api.get("/v1/whoami").headers["x-ratelimit-limit"] == str(key.rate_limit)
    key.rate_limit = 7
    assert api.get("/v1/whoami").headers["x-ratelimit-limit"] == "7"


def test_a_replaced_key_object_is_read_again(
    api: httpx.Client, fresh_app: Starlette, key: ApiKey
) -> None:
    assert api.get("/v1/whoami").status_code == 200
    store = fresh_app.state.store
    replacement = ApiKey(KEY, key.account_id, key.environment, key.scopes, "new@owner.example")
    store.keys[KEY] = replacement
    try:
        created = api.post("/v1/vaults", json={"name": "Kept principal", "region": "us"})
        assert created.status_code == 201
        store.keys[KEY] = replacement
        replacement.revoked = True
        assert api.get("/v1/whoami").status_code == 401
    finally:
        store.keys[KEY] = key


def test_a_reset_brings_back_a_changed_key(api: httpx.Client, fresh_app: Starlette) -> None:
    store = fresh_app.state.store
    changed = store.keys[KEY]
    changed.revoked = True
    changed.rate_limit = 7
    assert api.get("/v1/whoami").status_code == 401
    assert api.post("/_mock/reset").status_code == 200
    whoami = api.get("/v1/whoami")
    assert whoami.status_code == 200
    assert whoami.headers["x-ratelimit-limit"] == str(store.seed.keys[KEY].rate_limit)
    assert store.keys[KEY] is not changed
    assert store.keys[KEY] is not store.seed.keys[KEY]  # the seed's own stays untouched


def test_a_reset_keeps_unchanged_keys_and_their_principal(
    api: httpx.Client, fresh_app: Starlette
) -> None:
    store = fresh_app.state.store
    before = api.get("/v1/whoami")
    kept = dict(store.keys)
    assert api.post("/_mock/reset").status_code == 200
    assert all(store.keys[name] is key for name, key in kept.items())
    after = api.get("/v1/whoami")
    assert after.json() == before.json()
    kept[KEY].scopes = frozenset({"vaults:read"})  # changed after the reset: read at once
    assert api.get("/v1/documents/doc_mock_draft").status_code == 403
    assert api.post("/_mock/reset").status_code == 200
    assert api.get("/v1/documents/doc_mock_draft").status_code == 200


def test_a_reset_drops_keys_an_account_added(api: httpx.Client, fresh_app: Starlette) -> None:
    store = fresh_app.state.store
    seeded = set(store.seed.keys)
    made = api.post("/_mock/accounts", json={"name": "Extra"})
    assert made.status_code == 201, made.text
    key = made.json()["keys"]["full"]
    assert api.get("/v1/whoami", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    assert api.post("/_mock/reset").status_code == 200
    assert set(store.keys) == seeded  # the account's keys lived in its own sandbox
    assert api.get("/v1/whoami", headers={"Authorization": f"Bearer {key}"}).status_code == 401
