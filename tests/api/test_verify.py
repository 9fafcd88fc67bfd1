"""`POST /_mock/requests/verify`: matches, counts, near misses with their differences,
`since_seq`, and bad matchers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.api import assert_envelope
from tests.support.keys import FULL, READONLY, auth
from tests.support.scenarios import create_doc


def verify(client: httpx.Client, **matcher: Any) -> dict[str, Any]:
    response = client.post("/_mock/requests/verify", json=matcher)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    assert set(answer) == {"ok", "matched", "near_misses"}
    return answer


def fields(near_miss: dict[str, Any]) -> list[str]:
    return [d["field"] for d in near_miss["differences"]]


def test_an_empty_journal_matches_nothing(both: httpx.Client) -> None:
    assert verify(both, method="GET") == {"ok": False, "matched": 0, "near_misses": []}
    assert verify(both, method="GET", count=0)["ok"] is True


def test_method_and_path_patterns_match(both: httpx.Client) -> None:
    create_doc(both, "One")
    both.get("/us/v1/documents/doc_mock_draft")
    both.get("/eu/v1/vaults/vault_mock_eu")
    assert verify(both, method="POST", path="/v1/documents")["matched"] == 1
    assert verify(both, method=["GET", "POST"], path="/v1/**")["matched"] == 3
    assert verify(both, path="/v1/documents/{id}")["matched"] == 1  # prefix ignored
    assert verify(both, path="/us/v1/documents/doc_mock_*")["matched"] == 1
    assert verify(both, method="get")["matched"] == 2
    assert verify(both)["matched"] == 3  # an empty matcher matches every request


def test_counts(both: httpx.Client) -> None:
    for _ in range(3):
        both.get("/v1/whoami")
    assert verify(both, path="/v1/whoami", count=3)["ok"] is True
    assert verify(both, path="/v1/whoami", count=2)["ok"] is False
    assert verify(both, path="/v1/whoami", at_least=3)["ok"] is True
    assert verify(both, path="/v1/whoami", at_least=4)["ok"] is False
    assert verify(both, path="/v1/whoami", at_most=3)["ok"] is True
    assert verify(both, path="/v1/whoami", at_most=2) == {
        "ok": False,
        "matched": 3,
        "near_misses": [],
    }


def test_query_headers_body_status_and_key(both: httpx.Client) -> None:
    both.get("/v1/documents?vault_id=vault_mock_us&limit=5", headers={"X-Trace": "abc"})
    create_doc(both, "Report")
    both.post("/v1/vaults", json={"name": "x", "region": "us"}, headers=auth(READONLY))
    assert verify(both, query={"vault_id": "vault_mock_us", "limit": "*"})["matched"] == 1
    assert verify(both, headers={"X-TRACE": "abc"})["matched"] == 1
    assert verify(both, headers={"x-trace": "*"})["matched"] == 1
    assert verify(both, body={"title": "Report"})["matched"] == 1
    assert verify(both, body={"title": "Report", "vault_id": "vault_mock_us"})["ok"] is True
    assert verify(both, status=201)["matched"] == 1
    assert verify(both, status=[200, 403])["matched"] == 2
    assert verify(both, key=READONLY)["matched"] == 1
    assert verify(both, key="sk_test_********only")["matched"] == 1  # as the journal shows it
    assert verify(both, key=FULL)["matched"] == 2


def test_a_near_miss_names_each_differing_field(both: httpx.Client) -> None:
    create_doc(both, "Quarterly")
    answer = verify(both, method="POST", path="/v1/documents", body={"title": "Annual"})
    assert answer["ok"] is False
    assert answer["matched"] == 0
    [miss] = answer["near_misses"]
    assert (miss["seq"], miss["method"], miss["path"], miss["status"]) == (
        1,
        "POST",
        "/v1/documents",
        201,
    )
    assert miss["differences"] == [
        {"field": "body/title", "expected": "Annual", "actual": "Quarterly"}
    ]


def test_every_kind_of_difference(both: httpx.Client) -> None:
    both.get("/v1/documents?limit=5", headers={"X-Trace": "abc"})
    answer = verify(
        both,
        method="POST",
        path="/v1/vaults",
        status=201,
        key=READONLY,
        query={"limit": "6", "cursor": "*"},
        headers={"x-trace": "xyz", "x-other": "*"},
        body={"name": "x"},
    )
    [miss] = answer["near_misses"]
    by_field = {d["field"]: (d["expected"], d["actual"]) for d in miss["differences"]}
    assert by_field == {
        "method": ("POST", "GET"),
        "path": ("/v1/vaults", "/v1/documents"),
        "status": (201, 200),
        "key": ("sk_test_********only", "sk_test_********full"),
        "query.limit": ("6", "5"),
        "query.cursor": ("*", None),
        "headers.x-trace": ("xyz", "abc"),
        "headers.x-other": ("*", None),
        "body": ({"name": "x"}, None),
    }


def test_nested_body_differences_are_json_pointers(both: httpx.Client) -> None:
    both.post(
        "/v1/workflows",
        json={"document_id": "doc_mock_draft", "steps": [{"assignee": "ana@example.com"}]},
    )
    answer = verify(
        both,
        body={"document_id": "doc_mock_draft", "steps": [{"assignee": "bo@example.com"}], "x": 1},
    )
    [miss] = answer["near_misses"]
    assert miss["differences"] == [
        {
            "field": "body/steps/0/assignee",
            "expected": "bo@example.com",
            "actual": "ana@example.com",
        },
        {"field": "body/x", "expected": 1, "actual": None},
    ]


def test_near_misses_are_the_three_closest_newest_first(both: httpx.Client) -> None:
    both.get("/v1/vaults")  # 1: path and method differ
    create_doc(both, "A")  # 2: title differs
    create_doc(both, "B")  # 3: title differs
    both.get("/v1/whoami")  # 4: path and method differ
    create_doc(both, "C")  # 5: title differs
    create_doc(both, "D")  # 6: title differs
    answer = verify(both, method="POST", path="/v1/documents", body={"title": "Z"})
    assert [m["seq"] for m in answer["near_misses"]] == [6, 5, 3]
    assert all(fields(m) == ["body/title"] for m in answer["near_misses"])
    answer = verify(both, method="DELETE", path="/v1/whoami")
    assert [m["seq"] for m in answer["near_misses"]] == [4, 6, 5]
    assert fields(answer["near_misses"][0]) == ["method"]


def test_near_misses_only_when_not_ok(both: httpx.Client) -> None:
    create_doc(both, "A")
    both.get("/v1/whoami")
    assert verify(both, method="POST")["near_misses"] == []


def test_since_seq_counts_only_later_requests(both: httpx.Client) -> None:
    create_doc(both, "A")
    create_doc(both, "B")
    seq = both.get("/_mock/requests", params={"limit": 1}).json()["data"][0]["seq"]
    assert verify(both, method="POST", count=2)["ok"] is True
    assert verify(both, method="POST", since_seq=seq)["ok"] is False
    create_doc(both, "C")
    answer = verify(both, method="POST", since_seq=seq, count=1)
    assert answer == {"ok": True, "matched": 1, "near_misses": []}


def test_the_matcher_may_be_nested(both: httpx.Client) -> None:
    create_doc(both, "A")
    response = both.post("/_mock/requests/verify", json={"matcher": {"method": "POST"}, "count": 1})
    assert response.json()["ok"] is True


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"method": 5}, "method"),
        ({"method": []}, "method"),
        ({"path": "v1/documents"}, "path"),
        ({"path": "/v1/{bad"}, "path"),
        ({"key": ""}, "key"),
        ({"query": ["a"]}, "query"),
        ({"query": {"limit": 5}}, "query.limit"),
        ({"headers": {"x-a": None}}, "headers.x-a"),
        ({"status": 99}, "status"),
        ({"status": "200"}, "status"),
        ({"count": -1}, "count"),
        ({"at_least": 1.5}, "at_least"),
        ({"count": 1, "at_most": 2}, "at_most"),
        ({"since_seq": "5"}, "since_seq"),
        ({"methods": "GET"}, "methods"),
        ({"matcher": []}, "matcher"),
        ({"matcher": {"method": "GET"}, "path": "/v1"}, "path"),
    ],
)
def test_a_bad_matcher_is_422_with_param(both: httpx.Client, body: Any, param: str) -> None:
    response = both.post("/_mock/requests/verify", json=body)
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == param


def test_a_body_that_is_not_an_object_is_400(both: httpx.Client) -> None:
    response = both.post("/_mock/requests/verify", content=b"[1]")
    assert_envelope(response, 400, "bad_request")


def test_verify_calls_are_not_journaled(both: httpx.Client) -> None:
    verify(both, method="GET")
    verify(both, method="GET")
    assert verify(both, count=0)["ok"] is True
