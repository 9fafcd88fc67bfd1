"""Regional hosts by name: `Host: eu.localhost` routes exactly as `/eu/v1` does."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mockserver.engine.request import host_region
from tests.support.api import assert_envelope
from tests.support.keys import EU, FULL, LIVE, auth


def host(name: str, key: str = FULL) -> dict[str, str]:
    return {**auth(key), "Host": name}


def comparable(response: httpx.Response) -> tuple[int, Any]:
    """Status and body, without what differs on every request: request ids and new ids."""
    body = response.json()
    if "error" in body:
        body["error"].pop("request_id")
    if response.status_code == 201:
        body.pop("id")
    return response.status_code, body


@pytest.mark.parametrize(
    ("method", "path", "key", "body"),
    [
        ("GET", "/v1/documents/doc_mock_draft", FULL, None),
        ("GET", "/v1/documents?limit=100", FULL, None),
        ("GET", "/v1/documents?vault_id=vault_mock_us", FULL, None),
        ("GET", "/v1/vaults", FULL, None),
        ("GET", "/v1/vaults/vault_mock_us", FULL, None),
        ("GET", "/v1/vaults/vault_mock_eu", FULL, None),
        ("GET", "/v1/vaults", EU, None),
        ("GET", "/v1/documents?limit=100", LIVE, None),
        ("GET", "/v1/nope", FULL, None),
        ("POST", "/v1/vaults", FULL, {"name": "Wrong region", "region": "us"}),
        ("POST", "/v1/documents", FULL, {"title": "t", "vault_id": "vault_mock_us"}),
    ],
)
@pytest.mark.parametrize("region", ["us", "eu"])
def test_host_style_answers_exactly_as_path_style(
    both: httpx.Client, region: str, method: str, path: str, key: str, body: Any
) -> None:
    by_path = both.request(method, f"/{region}{path}", headers=auth(key), json=body)
    by_host = both.request(method, path, headers=host(f"{region}.localhost:8080", key), json=body)
    assert comparable(by_host) == comparable(by_path)


def test_residency_404s_are_the_same_by_host(both: httpx.Client) -> None:
    eu = host("eu.localhost")
    assert_envelope(both.get("/v1/documents/doc_mock_draft", headers=eu), 404, "not_found")
    assert_envelope(both.get("/v1/vaults/vault_mock_us", headers=eu), 404, "not_found")
    assert both.get("/v1/vaults/vault_mock_eu", headers=eu).status_code == 200
    assert_envelope(
        both.get("/v1/vaults/vault_mock_eu", headers=host("us.localhost")), 404, "not_found"
    )


def test_writes_through_a_regional_host_land_in_that_region(both: httpx.Client) -> None:
    eu = host("eu.api.example.test")
    vault = both.post("/v1/vaults", json={"name": "Zurich", "region": "eu"}, headers=eu).json()
    assert vault["region"] == "eu"
    assert both.get(f"/eu/v1/vaults/{vault['id']}").status_code == 200
    assert_envelope(both.get(f"/v1/vaults/{vault['id']}"), 404, "not_found")


def test_a_host_and_a_path_of_the_same_region_agree(both: httpx.Client) -> None:
    response = both.get("/eu/v1/vaults/vault_mock_eu", headers=host("eu.localhost"))
    assert response.status_code == 200


def test_a_host_and_a_path_of_different_regions_is_404(both: httpx.Client) -> None:
    response = both.get("/us/v1/vaults/vault_mock_us", headers=host("eu.localhost:8080"))
    error = assert_envelope(response, 404, "not_found")
    assert "/us/v1/vaults/vault_mock_us" in error["message"]
    assert "eu.localhost:8080" in error["message"]


@pytest.mark.parametrize(
    ("name", "region"),
    [
        ("us.localhost:8080", "us"),
        ("eu.localhost", "eu"),
        ("EU.Localhost:443", "eu"),
        ("eu.api.example.com", "eu"),
        ("localhost:8080", None),
        ("127.0.0.1:8080", None),
        ("[::1]:8080", None),
        ("us", None),
        ("us:8080", None),
        ("usa.localhost", None),
        ("api.eu.localhost", None),
        ("", None),
    ],
)
def test_host_region_reads_the_first_label(name: str, region: str | None) -> None:
    assert host_region([(b"host", name.encode())]) == region


def test_no_host_header_means_no_pinned_region() -> None:
    assert host_region([]) is None
