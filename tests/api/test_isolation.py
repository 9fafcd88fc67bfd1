"""Residency and partitioning: accounts, environments and regions never see each other."""

from __future__ import annotations

import httpx

from tests.support.api import assert_envelope
from tests.support.keys import EU, LIVE, auth


def test_other_accounts_data_is_404(both: httpx.Client) -> None:
    assert_envelope(both.get("/v1/documents/doc_mock_draft", headers=auth(EU)), 404, "not_found")
    assert_envelope(both.get("/eu/v1/vaults/vault_mock_eu", headers=auth(EU)), 404, "not_found")
    eu_docs = both.get("/v1/documents?limit=100", headers=auth(EU)).json()["data"]
    us_docs = both.get("/v1/documents?limit=100").json()["data"]
    assert eu_docs
    assert not ({d["id"] for d in eu_docs} & {d["id"] for d in us_docs})


def test_eu_accounts_default_host_routes_to_eu(api: httpx.Client) -> None:
    vaults = api.get("/v1/vaults", headers=auth(EU)).json()["data"]
    assert vaults
    assert {v["region"] for v in vaults} == {"eu"}
    assert api.get("/us/v1/vaults", headers=auth(EU)).json()["data"] == []


def test_live_environment_never_sees_sandbox_data(both: httpx.Client) -> None:
    assert both.get("/v1/documents", headers=auth(LIVE)).json()["data"] == []
    assert both.get("/v1/vaults", headers=auth(LIVE)).json()["data"] == []
    assert_envelope(both.get("/v1/documents/doc_mock_draft", headers=auth(LIVE)), 404, "not_found")
    live_vault = both.post(
        "/v1/vaults", json={"name": "Live", "region": "us"}, headers=auth(LIVE)
    ).json()
    live_doc = both.post(
        "/v1/documents", json={"title": "t", "vault_id": live_vault["id"]}, headers=auth(LIVE)
    ).json()
    assert_envelope(both.get(f"/v1/documents/{live_doc['id']}"), 404, "not_found")
    assert_envelope(both.get(f"/v1/vaults/{live_vault['id']}"), 404, "not_found")
    assert both.get(f"/v1/documents/{live_doc['id']}", headers=auth(LIVE)).status_code == 200


def test_region_pins_through_paths(both: httpx.Client) -> None:
    assert both.get("/us/v1/documents/doc_mock_draft").status_code == 200
    assert_envelope(both.get("/eu/v1/documents/doc_mock_draft"), 404, "not_found")
    assert_envelope(both.get("/eu/v1/vaults/vault_mock_us"), 404, "not_found")
    assert_envelope(both.get("/v1/vaults/vault_mock_eu"), 404, "not_found")
    assert both.get("/eu/v1/vaults/vault_mock_eu").status_code == 200
    eu_docs = both.get("/eu/v1/documents?limit=100").json()["data"]
    for doc in eu_docs:
        assert both.get(f"/eu/v1/documents/{doc['id']}").json()["region"] == "eu"
        assert_envelope(both.get(f"/v1/documents/{doc['id']}"), 404, "not_found")


def test_writes_in_one_account_do_not_leak(api: httpx.Client) -> None:
    before = api.get("/v1/documents?limit=100", headers=auth(EU)).json()
    api.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"})
    assert api.get("/v1/documents?limit=100", headers=auth(EU)).json() == before
