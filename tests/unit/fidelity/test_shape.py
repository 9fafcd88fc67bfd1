"""The comparer of two answers: what counts as drift, and what is compared by form only."""

from __future__ import annotations

from typing import Any

import pytest

from mockserver.fidelity.conform import comparer
from mockserver.fidelity.shape import Comparer, Difference

HEADERS = {"content-type": "application/json", "x-request-id": "req_a"}
DOC = {
    "id": "doc_AAAAAAAAAAAA",
    "object": "document",
    "status": "draft",
    "version": 1,
    "title": "A",
    "created_at": "2026-01-15T09:00:00Z",
    "sha256": "ab" * 32,
    "metadata": {"kind": "nda"},
    "signers": [],
}


@pytest.fixture(scope="module")
def compare() -> Comparer:
    return comparer()


def diff(compare: Comparer, upstream: Any, mock: Any, status: tuple[int, int] = (200, 200)):
    return compare.compare((status[0], HEADERS, upstream), (status[1], HEADERS, mock))


def test_values_that_differ_by_nature_are_compared_by_form(compare: Comparer) -> None:
    other = {
        **DOC,
        "id": "doc_ZZZZZZZZZZZZZZZZ",
        "title": "B",
        "version": 7,
        "created_at": "2027-02-01T10:11:12Z",
        "sha256": "cd" * 32,
        "metadata": {"kind": "sow"},
        "signers": ["a@example.com"],
    }
    assert diff(compare, DOC, other) == []


@pytest.mark.parametrize(
    ("field", "value", "upstream", "mock"),
    [
        ("id", "document_AAAAAAAAAAAA", "id document_…", "id doc_…"),
        (
            "created_at",
            "2026-01-15T09:00:00.000Z",
            "timestamp dddd-dd-ddTdd:dd:dd.dddZ",
            "timestamp dddd-dd-ddTdd:dd:ddZ",
        ),
        ("version", "1", "string", "number"),
        ("status", "signed", "string 'signed'", "string 'draft'"),
        ("metadata", None, "null", "object"),
    ],
)
def test_a_change_of_form_type_or_enum_is_drift(
    compare: Comparer, field: str, value: Any, upstream: str, mock: str
) -> None:
    assert diff(compare, {**DOC, field: value}, DOC) == [Difference(f"$.{field}", upstream, mock)]


def test_a_missing_object_is_reported_once_not_field_by_field(compare: Comparer) -> None:
    lacking = {k: v for k, v in DOC.items() if k != "metadata"}
    assert diff(compare, DOC, lacking) == [Difference("$.metadata", "object", "(absent)")]


def test_list_items_are_merged_so_lengths_and_order_do_not_matter(compare: Comparer) -> None:
    one = {"object": "list", "data": [DOC]}
    three = {"object": "list", "data": [DOC, {**DOC, "status": "signed"}, DOC]}
    assert diff(compare, one, three) == [
        Difference("$.data[].status", "string 'draft'", "string 'draft' or string 'signed'")
    ]
    extra = {"object": "list", "data": [{**DOC, "color": "blue"}]}
    assert diff(compare, extra, one) == [Difference("$.data[].color", "string", "(absent)")]


def test_error_type_param_and_status_and_headers(compare: Comparer) -> None:
    error = {"error": {"type": "validation_error", "param": "title", "message": "a"}}
    other = {"error": {"type": "validation_error", "param": "vault_id", "message": "b"}}
    got = compare.compare((422, HEADERS, error), (400, {"content-type": "text/plain"}, other))
    assert got == [
        Difference("status", "422", "400"),
        Difference("headers.content-type", "application/json", "text/plain"),
        Difference("headers.x-request-id", "present", "(absent)"),
        Difference("$.error.param", "string 'title'", "string 'vault_id'"),
    ]
