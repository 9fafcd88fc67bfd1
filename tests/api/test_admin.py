"""The /_mock control plane: clock, reset, legal hold, and its guards."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope, clock_advance
from tests.support.keys import auth


def test_clock_reads_and_moves(both: httpx.Client) -> None:
    assert both.get("/_mock/clock").json() == {"now": "2026-01-15T09:00:00Z", "mode": "frozen"}
    moved = both.post("/_mock/clock/advance", json={"seconds": 90.5}).json()
    assert moved["now"] == "2026-01-15T09:01:30Z"
    assert both.get("/_mock/clock").json()["now"] == "2026-01-15T09:01:30Z"
    doc = both.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
    assert doc["created_at"] == "2026-01-15T09:01:30Z"
    both.post("/_mock/clock/set", json={"at": "2026-03-01T00:00:00Z"})
    assert both.get("/_mock/clock").json()["now"] == "2026-03-01T00:00:00Z"
    both.post("/_mock/clock/set", json={"at": "2026-02-01T00:00:00+01:00"})
    assert both.get("/_mock/clock").json()["now"] == "2026-01-31T23:00:00Z"


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/_mock/clock/advance", {}, "seconds"),
        ("/_mock/clock/advance", {"seconds": "60"}, "seconds"),
        ("/_mock/clock/advance", {"seconds": -1}, "seconds"),
        ("/_mock/clock/advance", {"seconds": True}, "seconds"),
        ("/_mock/clock/advance", {"seconds": 10**12}, "seconds"),
        ("/_mock/clock/set", {"at": "soon"}, "at"),
        ("/_mock/clock/set", {"at": 5}, "at"),
        ("/_mock/clock/set", {}, "at"),
        ("/_mock/documents/doc_mock_draft/legal_hold", {"on": "yes"}, "on"),
    ],
)
def test_validation(api: httpx.Client, path: str, body: dict[str, object], param: str) -> None:
    error = assert_envelope(api.post(path, json=body), 422, "validation_error")
    assert error["param"] == param
    assert api.get("/_mock/clock").json()["now"] == "2026-01-15T09:00:00Z"


def test_signed_document_locks_after_lock_after(both: httpx.Client) -> None:
    # doc_mock_signed was signed 60 s before the start; vault_mock_us locks after 300 s
    clock_advance(both, 239)
    assert both.get("/v1/documents/doc_mock_signed").json()["status"] == "signed"
    clock_advance(both, 1)
    assert both.get("/v1/documents/doc_mock_signed").json()["status"] == "locked"
    events = both.get("/v1/audit_logs?resource_id=doc_mock_signed&limit=1").json()["data"]
    assert events[0]["type"] == "document.locked"
    assert events[0]["actor"] == "system"
    assert events[0]["at"] == "2026-01-15T09:04:00Z"


def test_newly_signed_document_locks_on_the_clock(api: httpx.Client) -> None:
    doc_id = api.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()[
        "id"
    ]
    wf = api.post(
        "/v1/workflows", json={"document_id": doc_id, "steps": [{"assignee": "a@b.co"}]}
    ).json()
    api.post(f"/v1/workflows/{wf['id']}/advance", json={"decision": "approve"})
    clock_advance(api, 299)
    assert api.get(f"/v1/documents/{doc_id}").json()["status"] == "signed"
    moved = api.post("/_mock/clock/advance", json={"seconds": 3600}).json()
    assert moved["timers_run"] >= 1
    assert api.get(f"/v1/documents/{doc_id}").json()["status"] == "locked"
    locked = api.get(f"/v1/audit_logs?resource_id={doc_id}&type=document.locked").json()["data"]
    assert [e["at"] for e in locked] == ["2026-01-15T09:05:00Z"]  # on time, not at the jump's end


def test_clock_set_backwards_runs_nothing(api: httpx.Client) -> None:
    api.post("/_mock/clock/set", json={"at": "2025-01-01T00:00:00Z"})
    assert api.get("/v1/documents/doc_mock_signed").json()["status"] == "signed"
    api.post("/_mock/clock/set", json={"at": "2026-01-15T09:10:00Z"})
    assert api.get("/v1/documents/doc_mock_signed").json()["status"] == "locked"


def test_reset_is_a_clean_slate(both: httpx.Client) -> None:
    created = both.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
    both.delete("/v1/documents/doc_mock_draft")
    both.post("/_mock/clock/advance", json={"seconds": 3600})
    chain_before = both.get("/v1/audit_logs?limit=1").json()["data"][0]["seq"]
    reset = both.post("/_mock/reset")
    assert reset.status_code == 200
    assert reset.json()["now"] == "2026-01-15T09:00:00Z"
    assert_envelope(both.get(f"/v1/documents/{created['id']}"), 404, "not_found")
    assert both.get("/v1/documents/doc_mock_draft").status_code == 200
    assert both.get("/v1/documents/doc_mock_signed").json()["status"] == "signed"
    assert both.get("/v1/audit_logs?limit=1").json()["data"][0]["seq"] < chain_before
    again = both.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
    assert again["id"] == created["id"]  # id streams restart too


def test_legal_hold_toggles(api: httpx.Client) -> None:
    on = api.post("/_mock/documents/doc_mock_draft/legal_hold", json={"on": True})
    assert on.json() == {"id": "doc_mock_draft", "legal_hold": True}
    assert_envelope(api.delete("/v1/documents/doc_mock_draft"), 409, "conflict")
    assert api.get("/v1/documents/doc_mock_draft").json()["legal_hold"] is True
    api.post("/_mock/documents/doc_mock_draft/legal_hold", json={"on": False})
    assert api.delete("/v1/documents/doc_mock_draft").status_code == 200
    released = api.post("/_mock/documents/doc_mock_legal_hold/legal_hold", json={"on": False})
    assert released.json()["legal_hold"] is False
    assert api.delete("/v1/documents/doc_mock_legal_hold").status_code == 200
    assert_envelope(
        api.post("/_mock/documents/doc_nope/legal_hold", json={"on": True}), 404, "not_found"
    )


def test_legal_hold_finds_documents_of_any_account(api: httpx.Client) -> None:
    eu_doc = api.get("/v1/documents?limit=1", headers=auth("sk_test_mock_eu")).json()["data"][0]
    api.post(f"/_mock/documents/{eu_doc['id']}/legal_hold", json={"on": True})
    detail = api.get(f"/v1/documents/{eu_doc['id']}", headers=auth("sk_test_mock_eu")).json()
    assert detail["legal_hold"] is True


@pytest.fixture
def guarded() -> Iterator[httpx.Client]:
    app = create_app(Settings(clock_mode="frozen", admin_token="s3cret"))
    with inprocess_client(app) as client:
        yield client


def test_admin_token_guards_the_control_plane(guarded: httpx.Client) -> None:
    assert_envelope(guarded.post("/_mock/reset"), 401, "authentication_error")
    bad = guarded.get("/_mock/clock", headers={"X-Mock-Admin-Token": "nope"})
    assert_envelope(bad, 401, "authentication_error")
    good = guarded.get("/_mock/clock", headers={"X-Mock-Admin-Token": "s3cret"})
    assert good.status_code == 200
    assert guarded.get("/v1/whoami", headers=auth()).status_code == 200


def test_no_admin_removes_the_control_plane() -> None:
    app = create_app(Settings(clock_mode="frozen", admin=False))
    with inprocess_client(app) as client:
        for method, path in [("POST", "/_mock/reset"), ("GET", "/_mock/clock")]:
            assert_envelope(client.request(method, path), 404, "not_found")
        assert client.get("/v1/whoami", headers=auth()).status_code == 200


def test_real_clock_runs_due_timers_on_requests() -> None:
    app = create_app(Settings(clock_mode="real", start_time="2026-01-15T09:00:00Z"))
    with inprocess_client(app, headers=auth()) as client:
        assert client.get("/_mock/clock").json()["mode"] == "real"
        assert client.get("/v1/documents/doc_mock_signed").json()["status"] == "signed"
        client.post("/_mock/clock/advance", json={"seconds": 600})
        assert client.get("/v1/documents/doc_mock_signed").json()["status"] == "locked"
