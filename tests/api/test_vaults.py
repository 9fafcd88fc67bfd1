"""Vaults: list, create within the routed region, retrieve with members and document count."""

from __future__ import annotations

import httpx
import pytest

from tests.support.api import assert_envelope


def test_list_shows_only_the_routed_regions_vaults(both: httpx.Client) -> None:
    us = both.get("/v1/vaults").json()
    eu = both.get("/eu/v1/vaults").json()
    assert us["object"] == "list"
    assert eu["object"] == "list"
    assert {v["region"] for v in us["data"]} == {"us"}
    assert {v["region"] for v in eu["data"]} == {"eu"}
    assert "vault_mock_us" in {v["id"] for v in us["data"]}
    assert "vault_mock_eu" in {v["id"] for v in eu["data"]}
    assert both.get("/us/v1/vaults").json() == us
    item = us["data"][0]
    assert set(item) >= {"id", "name", "region", "members"}
    assert isinstance(item["members"], int)


def test_create_returns_the_spec_fields(both: httpx.Client) -> None:
    response = both.post(
        "/v1/vaults",
        json={"name": "Board minutes", "region": "us", "members": ["cfo@example.com"]},
    )
    assert response.status_code == 201
    vault = response.json()
    assert vault["id"].startswith("vault_")
    assert vault["name"] == "Board minutes"
    assert vault["region"] == "us"
    assert "AES-256-GCM" in vault["encryption"]

    detail = both.get(f"/v1/vaults/{vault['id']}").json()
    assert detail["document_count"] == 0
    roles = {m["email"]: m["role"] for m in detail["members"]}
    assert roles["cfo@example.com"] == "member"
    assert "owner" in roles.values()
    listed = {v["id"]: v for v in both.get("/v1/vaults").json()["data"]}
    assert listed[vault["id"]]["members"] == len(detail["members"])


def test_create_in_eu_through_the_eu_host(api: httpx.Client) -> None:
    vault = api.post("/eu/v1/vaults", json={"name": "Zurich", "region": "eu"}).json()
    assert vault["region"] == "eu"
    assert api.get(f"/eu/v1/vaults/{vault['id']}").status_code == 200
    assert_envelope(api.get(f"/v1/vaults/{vault['id']}"), 404, "not_found")


def test_region_mismatch_is_422_region(api: httpx.Client) -> None:
    error = assert_envelope(
        api.post("/v1/vaults", json={"name": "x", "region": "eu"}), 422, "validation_error"
    )
    assert error["param"] == "region"
    error = assert_envelope(
        api.post("/eu/v1/vaults", json={"name": "x", "region": "us"}), 422, "validation_error"
    )
    assert error["param"] == "region"


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"region": "us"}, "name"),
        ({"name": "x"}, "region"),
        ({"name": 7, "region": "us"}, "name"),
        ({"name": "", "region": "us"}, "name"),
        ({"name": "x" * 201, "region": "us"}, "name"),
        ({"name": "x", "region": "mars"}, "region"),
        ({"name": "x", "region": "us", "members": "a@b.co"}, "members"),
        ({"name": "x", "region": "us", "members": ["a@b.co", "nope"]}, "members[1]"),
        ({"name": "x", "region": "us", "members": [1]}, "members[0]"),
        ({"name": "x", "region": "us", "members": ["a@b.co\n"]}, "members[0]"),
        ({"name": "x", "region": "us", "members": [f"u{i}@b.co" for i in range(101)]}, "members"),
    ],
)
def test_create_validation(api: httpx.Client, body: dict[str, object], param: str) -> None:
    before = len(api.get("/v1/vaults").json()["data"])
    error = assert_envelope(api.post("/v1/vaults", json=body), 422, "validation_error")
    assert error["param"] == param
    assert len(api.get("/v1/vaults").json()["data"]) == before


def test_retrieve_counts_live_documents(api: httpx.Client) -> None:
    before = api.get("/v1/vaults/vault_mock_us").json()["document_count"]
    doc = api.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
    assert api.get("/v1/vaults/vault_mock_us").json()["document_count"] == before + 1
    api.delete(f"/v1/documents/{doc['id']}")
    assert api.get("/v1/vaults/vault_mock_us").json()["document_count"] == before


def test_unknown_vault_is_404(both: httpx.Client) -> None:
    assert_envelope(both.get("/v1/vaults/vault_nope"), 404, "not_found")
