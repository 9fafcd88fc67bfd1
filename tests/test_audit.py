"""The hash-chained audit log: one event per write, verification, filters, pagination."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
import pytest
import rfc8785

from mockserver.audit.chain import first_broken_link

from .conftest import EU, LIVE, auth
from .test_auth import assert_envelope
from .test_workflows import A, B, advance, new_document, start


def all_events(client: httpx.Client, query: str = "", prefix: str = "/v1") -> list[dict[str, Any]]:
    """Every event of the chain, oldest first, walking the cursors."""
    events: list[dict[str, Any]] = []
    cursor = ""
    while True:
        body = client.get(f"{prefix}/audit_logs?limit=100{query}{cursor}").json()
        events.extend(body["data"])
        if not body["has_more"]:
            return events[::-1]
        cursor = f"&cursor={body['next_cursor']}"


def verify(events: list[dict[str, Any]]) -> None:
    """The documentation's recipe (the first ten minutes), verbatim."""
    prev = "0" * 64
    for event in events:
        body = {k: v for k, v in event.items() if k != "hash"}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        assert event["prev_hash"] == prev, f"broken link at {event['id']}"
        assert event["hash"] == digest, f"altered event {event['id']}"
        prev = event["hash"]


def test_seeded_history_is_a_verified_chain(both: httpx.Client) -> None:
    events = all_events(both)
    assert len(events) > 50
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    verify(events)
    types = {e["type"] for e in events}
    assert {"vault.created", "document.created", "document.signed", "document.locked"} <= types
    assert {e["actor"] for e in events if e["type"] == "document.locked"} == {"system"}


def test_hash_is_rfc8785_canonical(api: httpx.Client) -> None:
    api.post(
        "/v1/documents",
        json={
            "title": 'Ünïcödé \u2028 "q" \\ \x1f 😀',
            "vault_id": "vault_mock_us",
            "metadata": {"é": "日本"},
        },
    )
    for event in all_events(api)[-3:]:
        body = {k: v for k, v in event.items() if k != "hash"}
        assert hashlib.sha256(rfc8785.dumps(body)).hexdigest() == event["hash"]


def test_every_write_writes_exactly_one_event_per_transition(api: httpx.Client) -> None:
    before = len(all_events(api))
    doc_id = new_document(api)
    wf = start(api, doc_id, [{"assignee": A}, {"assignee": B}])
    advance(api, wf["id"], "approve", comment="first pass")
    advance(api, wf["id"], "approve")
    vault = api.post("/v1/vaults", json={"name": "v", "region": "us"}).json()
    doomed = new_document(api)
    api.delete(f"/v1/documents/{doomed}")
    events = all_events(api)
    verify(events)
    new = [(e["type"], e["resource_id"]) for e in events[before:]]
    assert new == [
        ("document.created", doc_id),
        ("workflow.created", wf["id"]),
        ("document.in_review", doc_id),
        ("workflow.advanced", wf["id"]),
        ("workflow.completed", wf["id"]),
        ("document.signed", doc_id),
        ("signature.completed", doc_id),
        ("signature.completed", doc_id),
        ("vault.created", vault["id"]),
        ("document.created", doomed),
        ("document.deleted", doomed),
    ]
    by_type = {e["type"]: e for e in events[before:]}
    owner = api.get("/v1/vaults/vault_mock_us").json()["members"][0]["email"]
    assert {e["actor"] for e in events[before:]} == {owner}  # the key's owner
    assert by_type["workflow.advanced"]["data"]["steps"][0]["comment"] == "first pass"
    assert by_type["signature.completed"]["data"] == {
        "document_id": doc_id,
        "signer": B,
        "ip_verified": True,
        "vault_id": "vault_mock_us",
    }
    assert by_type["document.signed"]["data"]["status"] == "signed"


def test_rejection_events(api: httpx.Client) -> None:
    before = len(all_events(api))
    doc_id = new_document(api)
    wf = start(api, doc_id, [{"assignee": A}])
    advance(api, wf["id"], "reject", comment="no")
    new = [e["type"] for e in all_events(api)[before:]]
    assert new == [
        "document.created",
        "workflow.created",
        "document.in_review",
        "workflow.rejected",
        "document.draft",
    ]


def test_failed_requests_write_nothing(api: httpx.Client) -> None:
    before = all_events(api)
    api.post("/v1/documents", json={"title": "t"})
    api.delete("/v1/documents/doc_mock_signed")
    api.post("/v1/workflows", json={"document_id": "doc_mock_locked", "steps": [{"assignee": A}]})
    assert all_events(api) == before


def test_altering_any_stored_event_breaks_verification(api: httpx.Client) -> None:
    for _ in range(40):
        doc_id = new_document(api)
        start(api, doc_id, [{"assignee": A}])
    events = all_events(api)
    assert len(events) > 200
    verify(events)
    assert first_broken_link(events) is None
    for index in (0, len(events) // 2, len(events) - 1):
        for field, value in (("actor", "mallory@example.com"), ("seq", 10**6), ("data", {})):
            forged = [dict(e) for e in events]
            forged[index][field] = value
            assert first_broken_link(forged) == index
            with pytest.raises(AssertionError):
                verify(forged)
    dropped = events[:10] + events[11:]
    assert first_broken_link(dropped) == 10


def test_chains_are_per_region_and_account(api: httpx.Client) -> None:
    us, eu = all_events(api), all_events(api, prefix="/eu/v1")
    verify(us)
    verify(eu)
    assert not {e["id"] for e in us} & {e["id"] for e in eu}
    api.post("/eu/v1/documents", json={"title": "t", "vault_id": "vault_mock_eu"})
    assert all_events(api) == us
    assert len(all_events(api, prefix="/eu/v1")) == len(eu) + 1
    other = all_events(
        api.__class__(transport=api._transport, base_url=api.base_url, headers=auth(EU))
    )
    verify(other)
    assert not {e["id"] for e in other} & {e["id"] for e in us + eu}
    assert api.get("/v1/audit_logs", headers=auth(LIVE)).json()["data"] == []


def test_newest_first_and_pagination(api: httpx.Client) -> None:
    page = api.get("/v1/audit_logs?limit=5").json()
    assert page["object"] == "list"
    seqs = [e["seq"] for e in page["data"]]
    assert seqs == sorted(seqs, reverse=True)
    assert page["has_more"] is True
    new_document(api)  # an insert mid-walk does not shift the walk
    second = api.get(f"/v1/audit_logs?limit=5&cursor={page['next_cursor']}").json()
    assert second["data"][0]["seq"] == seqs[-1] - 1


def test_filters(api: httpx.Client) -> None:
    doc_id = new_document(api)
    wf = start(api, doc_id, [{"assignee": A}])
    by_doc = all_events(api, f"&resource_id={doc_id}")
    assert [e["type"] for e in by_doc] == [
        "document.created",
        "workflow.created",
        "document.in_review",
    ]
    by_wf = all_events(api, f"&resource_id={wf['id']}")
    assert [e["type"] for e in by_wf] == ["workflow.created"]
    by_vault = all_events(api, "&resource_id=vault_mock_us")
    assert len(by_vault) > len(by_doc)
    assert {e["resource_id"] for e in by_vault} >= {"vault_mock_us", doc_id}
    locked = all_events(api, "&type=document.locked")
    assert locked
    assert {e["type"] for e in locked} == {"document.locked"}
    system = all_events(api, "&actor=system")
    assert system
    assert {e["actor"] for e in system} == {"system"}
    now = by_doc[0]["at"]
    assert {e["id"] for e in all_events(api, f"&since={now}")} >= {e["id"] for e in by_doc}
    assert all(e["at"] >= now for e in all_events(api, f"&since={now}"))
    assert all(
        e["at"] <= "2025-06-30T23:59:59Z" for e in all_events(api, "&until=2025-06-30T23:59:59Z")
    )
    assert all_events(api, f"&since={now}&until={now}&actor=nobody@example.com") == []
    day = now[:10]
    assert {e["id"] for e in all_events(api, f"&since={day}")} >= {e["id"] for e in by_doc}


def test_a_leap_second_bound_is_the_next_second(api: httpx.Client) -> None:
    # RFC 3339 allows 23:59:60 (any :60, as format checkers do); Unix time reads it as the
    # second after :59.
    created = api.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
    assert created["created_at"].endswith("T09:00:00Z")  # the frozen clock
    day = created["created_at"][:10]
    mine = f"&resource_id={created['id']}"
    assert all_events(api, f"{mine}&until={day}T08:59:59Z") == []
    assert len(all_events(api, f"{mine}&until={day}T08:59:60Z")) == 1
    assert len(all_events(api, f"{mine}&since={day}T08:59:60Z")) == 1


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("since=yesterday", "since"),
        ("until=2026-13-01", "until"),
        ("limit=0", "limit"),
        ("cursor=cur_x", "cursor"),
    ],
)
def test_filter_validation(api: httpx.Client, query: str, param: str) -> None:
    error = assert_envelope(api.get(f"/v1/audit_logs?{query}"), 422, "validation_error")
    assert error["param"] == param


def test_needs_audit_read(api: httpx.Client) -> None:
    assert api.get("/v1/audit_logs", headers=auth("sk_test_mock_readonly")).status_code == 200


def test_writes_with_an_oauth_token_are_attributed_to_its_user(api: httpx.Client) -> None:
    from .oauth_helpers import PARTIAL_USER, bearer, token_for

    token = token_for(api, login_hint=PARTIAL_USER)
    doc = api.post(
        "/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}, headers=bearer(token)
    ).json()
    wf = api.post(
        "/v1/workflows",
        json={"document_id": doc["id"], "steps": [{"assignee": A}]},
        headers=bearer(token),
    ).json()
    events = all_events(api, f"&resource_id={doc['id']}")
    assert [e["actor"] for e in events] == [PARTIAL_USER] * 3
    assert events[1]["resource_id"] == wf["id"]
