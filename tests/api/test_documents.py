"""Documents: create, retrieve, soft delete, retention and legal hold."""

from __future__ import annotations

import re
import sys

import httpx
import orjson
import pytest

from mockserver.domain.validation import NOT_BLANK_PATTERN
from tests.support.api import assert_envelope

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def test_create_returns_a_draft_at_version_1(both: httpx.Client) -> None:
    response = both.post(
        "/v1/documents",
        json={"title": "Mutual NDA", "vault_id": "vault_mock_us", "metadata": {"kind": "nda"}},
    )
    assert response.status_code == 201
    doc = response.json()
    assert doc["id"].startswith("doc_")
    assert doc["object"] == "document"
    assert doc["status"] == "draft"
    assert doc["version"] == 1
    assert doc["region"] == "us"
    assert doc["title"] == "Mutual NDA"
    assert doc["vault_id"] == "vault_mock_us"
    assert doc["metadata"] == {"kind": "nda"}
    assert TIMESTAMP.match(doc["created_at"])


def test_retrieve_has_signers_digest_and_history(both: httpx.Client) -> None:
    created = both.post("/v1/documents", json={"title": "SOW", "vault_id": "vault_mock_us"}).json()
    doc = both.get(f"/v1/documents/{created['id']}").json()
    assert doc["signers"] == []
    assert re.fullmatch(r"[0-9a-f]{64}", doc["sha256"])
    assert doc["versions"] == [
        {"version": 1, "sha256": doc["sha256"], "created_at": created["created_at"]}
    ]
    signed = both.get("/v1/documents/doc_mock_signed").json()
    assert signed["status"] == "signed"
    assert signed["signers"]
    assert all("@" in s for s in signed["signers"])


@pytest.mark.parametrize(
    ("doc_id", "status"),
    [
        ("doc_mock_draft", "draft"),
        ("doc_mock_in_review", "in_review"),
        ("doc_mock_signed", "signed"),
        ("doc_mock_locked", "locked"),
        ("doc_mock_legal_hold", "draft"),
    ],
)
def test_well_known_documents(api: httpx.Client, doc_id: str, status: str) -> None:
    doc = api.get(f"/v1/documents/{doc_id}").json()
    assert doc["status"] == status
    assert doc["vault_id"] == "vault_mock_us"
    assert doc["legal_hold"] is (doc_id == "doc_mock_legal_hold")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"vault_id": "vault_mock_us"}, "title"),
        ({"title": "t"}, "vault_id"),
        ({"title": None, "vault_id": "vault_mock_us"}, "title"),
        ({"title": 5, "vault_id": "vault_mock_us"}, "title"),
        ({"title": "", "vault_id": "vault_mock_us"}, "title"),
        ({"title": "   ", "vault_id": "vault_mock_us"}, "title"),
        ({"title": "x" * 501, "vault_id": "vault_mock_us"}, "title"),
        ({"title": "t", "vault_id": ["vault_mock_us"]}, "vault_id"),
        ({"title": "t", "vault_id": "vault_mock_us", "metadata": []}, "metadata"),
        ({"title": "t", "vault_id": "vault_mock_us", "metadata": {"a": {"b": 1}}}, "metadata.a"),
        ({"title": "t", "vault_id": "vault_mock_us", "metadata": {"a": 1.5}}, "metadata.a"),
        ({"title": "t", "vault_id": "vault_mock_us", "metadata": {"a": "x" * 501}}, "metadata.a"),
        ({"title": "t", "vault_id": "vault_mock_us", "metadata": {"a": 2**60}}, "metadata.a"),
        (
            {"title": "t", "vault_id": "vault_mock_us", "metadata": {"k" * 41: "v"}},
            "metadata." + "k" * 41,
        ),
        (
            {
                "title": "t",
                "vault_id": "vault_mock_us",
                "metadata": {f"k{i}": i for i in range(51)},
            },
            "metadata",
        ),
    ],
)
def test_create_validation(api: httpx.Client, body: dict[str, object], param: str) -> None:
    before = api.get("/v1/documents?limit=100").json()["data"]
    error = assert_envelope(api.post("/v1/documents", json=body), 422, "validation_error")
    assert error["param"] == param
    assert api.get("/v1/documents?limit=100").json()["data"] == before


@pytest.mark.parametrize(
    ("title", "status"),
    [
        ("\u3000\t\n", 422),  # Unicode whitespace only: blank
        ("\x85\xa0\u2028", 422),
        ("\x1e", 201),  # a control character is no whitespace (str.strip() thinks it is)
        ("\ufeff", 201),
        ("\u3000x", 201),  # whitespace first, then a character that is not
        ("\t\u205f\u1680 .", 201),
        (" \u2029 \u202f", 422),
        ("\U0001f600", 201),
    ],
)
def test_blank_means_unicode_whitespace_only(api: httpx.Client, title: str, status: int) -> None:
    # The same class the OpenAPI document publishes, so that every regex engine agrees.
    response = api.post("/v1/documents", json={"title": title, "vault_id": "vault_mock_us"})
    assert response.status_code == status, response.text


def test_integral_numbers_are_integers(api: httpx.Client) -> None:
    # JSON has one number type: 2.0 is the integer 2 (JSON Schema agrees), stored as 2 so the
    # audit chain stays float-free.
    body = {"title": "t", "vault_id": "vault_mock_us", "metadata": {"a": 2.0, "b": -1e3}}
    doc = api.post("/v1/documents", content=orjson.dumps(body)).json()
    shown = api.get(f"/v1/documents/{doc['id']}")
    assert shown.json()["metadata"] == {"a": 2, "b": -1000}
    assert b'"a":2,' in shown.content


def test_metadata_accepts_strings_integers_and_booleans(api: httpx.Client) -> None:
    metadata = {"kind": "nda", "amount": 12000, "urgent": True, "k" * 40: "v" * 500}
    body = {"title": "t", "vault_id": "vault_mock_us", "metadata": metadata}
    doc = api.post("/v1/documents", json=body).json()
    assert api.get(f"/v1/documents/{doc['id']}").json()["metadata"] == metadata


@pytest.mark.parametrize("vault_id", ["vault_nope", "vault_mock_eu"])
def test_create_in_an_unknown_or_foreign_region_vault_is_404(
    api: httpx.Client, vault_id: str
) -> None:
    response = api.post("/v1/documents", json={"title": "t", "vault_id": vault_id})
    error = assert_envelope(response, 404, "not_found")
    assert error["param"] == "vault_id"


def test_create_in_eu_through_the_eu_host(api: httpx.Client) -> None:
    doc = api.post("/eu/v1/documents", json={"title": "t", "vault_id": "vault_mock_eu"}).json()
    assert doc["region"] == "eu"
    assert api.get(f"/eu/v1/documents/{doc['id']}").status_code == 200
    assert_envelope(api.get(f"/v1/documents/{doc['id']}"), 404, "not_found")


def test_delete_is_a_soft_delete(both: httpx.Client) -> None:
    response = both.delete("/v1/documents/doc_mock_draft")
    assert response.status_code == 200
    assert response.json()["id"] == "doc_mock_draft"
    assert response.json()["deleted"] is True
    assert_envelope(both.get("/v1/documents/doc_mock_draft"), 404, "not_found")
    assert_envelope(both.delete("/v1/documents/doc_mock_draft"), 404, "not_found")
    ids = {d["id"] for d in both.get("/v1/documents?limit=100").json()["data"]}
    assert "doc_mock_draft" not in ids


def test_in_review_documents_can_be_deleted(api: httpx.Client) -> None:
    assert api.delete("/v1/documents/doc_mock_in_review").status_code == 200


@pytest.mark.parametrize(
    ("doc_id", "reason"),
    [
        ("doc_mock_legal_hold", "legal hold"),
        ("doc_mock_signed", "retention"),
        ("doc_mock_locked", "retention"),
    ],
)
def test_delete_under_hold_or_retention_is_409(
    both: httpx.Client, doc_id: str, reason: str
) -> None:
    error = assert_envelope(both.delete(f"/v1/documents/{doc_id}"), 409, "conflict")
    assert reason in error["message"]
    assert both.get(f"/v1/documents/{doc_id}").status_code == 200


def test_unknown_document_is_404(both: httpx.Client) -> None:
    assert_envelope(both.get("/v1/documents/doc_nope"), 404, "not_found")
    assert_envelope(both.delete("/v1/documents/doc_nope"), 404, "not_found")


def test_white_space_is_within_what_isspace_accepts() -> None:
    # validation._blank skips the regex when str.isspace() refuses the first character: sound
    # only while every character of the published class is one isspace() accepts.
    blank = re.compile(NOT_BLANK_PATTERN)
    spaces = [c for c in map(chr, range(sys.maxunicode + 1)) if not blank.match(c)]
    assert len(spaces) == 25
    assert all(c.isspace() for c in spaces)
