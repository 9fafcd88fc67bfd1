"""Cursor pagination of documents: limits, filters, and walks that survive inserts."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.domain import documents
from tests.support.api import assert_envelope


def walk(client: httpx.Client, query: str, *, insert_every: int = 0) -> list[str]:
    """Follow next_cursor to the end, optionally creating a document before every nth page."""
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        suffix = f"&cursor={cursor}" if cursor else ""
        body = client.get(f"/v1/documents?{query}{suffix}").json()
        assert body["object"] == "list"
        seen.extend(d["id"] for d in body["data"])
        pages += 1
        if insert_every and pages % insert_every == 0:
            created = client.post(
                "/v1/documents", json={"title": "new", "vault_id": "vault_mock_us"}
            )
            assert created.status_code == 201
        if not body["has_more"]:
            assert body["next_cursor"] is None
            return seen
        assert body["next_cursor"].startswith("cur_")
        cursor = body["next_cursor"]


def test_default_limit_is_20_and_newest_first(api: httpx.Client) -> None:
    first = api.get("/v1/documents").json()
    assert len(first["data"]) == 20
    assert first["has_more"] is True
    created = api.post("/v1/documents", json={"title": "newest", "vault_id": "vault_mock_us"})
    top = api.get("/v1/documents?limit=1").json()["data"][0]
    assert top["id"] == created.json()["id"]
    assert set(top) >= {"id", "title", "status", "version"}


def test_walk_sees_every_document_once_even_with_inserts_mid_walk(both: httpx.Client) -> None:
    expected = walk(both, "limit=100")
    assert len(expected) == len(set(expected)) > 25
    walked = walk(both, "limit=7", insert_every=1)
    assert walked == expected  # no repeats, no gaps, inserts land above the walk
    assert len(walk(both, "limit=100")) == len(expected) + len(range(0, len(expected), 7))


def test_deleted_documents_are_skipped_mid_walk(api: httpx.Client) -> None:
    first = api.get("/v1/documents?limit=5").json()
    victim = next(
        d["id"]
        for d in api.get(
            f"/v1/documents?limit=5&cursor={first['next_cursor']}&status=draft"
        ).json()["data"]
    )
    api.delete(f"/v1/documents/{victim}")
    rest = walk(api, "limit=100")
    assert victim not in rest


@pytest.mark.parametrize("status", ["draft", "in_review", "signed", "locked"])
def test_status_filter(api: httpx.Client, status: str) -> None:
    items = api.get(f"/v1/documents?status={status}&limit=100").json()["data"]
    assert items
    assert {d["status"] for d in items} == {status}


def test_vault_filter(api: httpx.Client) -> None:
    ids = walk(api, "vault_id=vault_mock_us&limit=3")
    assert {"doc_mock_draft", "doc_mock_legal_hold"} <= set(ids)
    for doc_id in ids:
        assert api.get(f"/v1/documents/{doc_id}").json()["vault_id"] == "vault_mock_us"


def test_filters_combine(api: httpx.Client) -> None:
    items = api.get("/v1/documents?vault_id=vault_mock_us&status=locked&limit=100").json()["data"]
    assert "doc_mock_locked" in {d["id"] for d in items}
    assert {d["status"] for d in items} == {"locked"}


def test_unknown_vault_filter_is_404(api: httpx.Client) -> None:
    error = assert_envelope(api.get("/v1/documents?vault_id=vault_nope"), 404, "not_found")
    assert error["param"] == "vault_id"
    error = assert_envelope(api.get("/v1/documents?vault_id=vault_mock_eu"), 404, "not_found")
    assert error["param"] == "vault_id"


@pytest.mark.parametrize(
    "limit",
    ["0", "101", "-1", "abc", "1.5", "", "1e2", " 5", "5\n", "\u00b2", "\u0665", "9" * 5000],
)
@pytest.mark.parametrize("path", ["/v1/documents", "/v1/audit_logs"])
def test_limit_out_of_range_is_422(api: httpx.Client, path: str, limit: str) -> None:
    # Only ASCII digits: '²' once passed str.isdigit() and then broke int() (a 500).
    error = assert_envelope(api.get(path, params={"limit": limit}), 422, "validation_error")
    assert error["param"] == "limit"


@pytest.mark.parametrize("limit", ["1", "100"])
def test_limit_bounds_are_accepted(api: httpx.Client, limit: str) -> None:
    for _ in range(100):
        api.post("/v1/documents", json={"title": "filler", "vault_id": "vault_mock_us"})
    assert len(api.get(f"/v1/documents?limit={limit}").json()["data"]) == int(limit)


def test_bad_status_is_422(api: httpx.Client) -> None:
    error = assert_envelope(api.get("/v1/documents?status=archived"), 422, "validation_error")
    assert error["param"] == "status"


def test_unknown_and_tampered_cursors_are_422(api: httpx.Client) -> None:
    cursor = api.get("/v1/documents?limit=2").json()["next_cursor"]
    tampered = cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")
    for bad in ["cur_nope", "abc", tampered, cursor + "x", "cur_" + "A" * 24]:
        error = assert_envelope(api.get(f"/v1/documents?cursor={bad}"), 422, "validation_error")
        assert error["param"] == "cursor"


def test_kept_pages_are_bounded_and_a_walk_reads_the_same_twice(
    api: httpx.Client, app: Starlette, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "PAGES_KEPT", 4)
    region = app.state.store.world("acct_mock_us", "sandbox").regions["us"]
    first = walk(api, "limit=1")
    assert len(region.pages) <= 4
    assert walk(api, "limit=1") == first  # pages rendered again once the bound dropped them
    assert len(first) > 8
