"""Workflows and the document transitions they drive, through HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.api import assert_envelope
from tests.support.keys import READONLY, auth
from tests.support.workflows import A, B, C, advance, new_document, start


def status_of(client: httpx.Client, doc_id: str) -> str:
    status: str = client.get(f"/v1/documents/{doc_id}").json()["status"]
    return status


def test_create_moves_the_draft_to_in_review(both: httpx.Client) -> None:
    doc_id = new_document(both)
    wf = start(both, doc_id, [{"assignee": A}, {"assignee": B}])
    assert wf["id"].startswith("wf_")
    assert wf["document_id"] == doc_id
    assert wf["status"] == "in_progress"
    assert wf["current_step"] == 1
    assert status_of(both, doc_id) == "in_review"


def test_approve_every_step_signs_the_document(both: httpx.Client) -> None:
    doc_id = new_document(both)
    wf = start(both, doc_id, [{"assignee": A}, {"assignee": B}])
    first = advance(both, wf["id"], "approve", comment="looks good")
    assert first.status_code == 200
    assert first.json() == {
        "id": wf["id"],
        "object": "workflow",
        "status": "in_progress",
        "current_step": 2,
        "last_decision": {"by": A, "decision": "approve"},
    }
    last = advance(both, wf["id"], "approve").json()
    assert last["status"] == "completed"
    assert last["last_decision"] == {"by": B, "decision": "approve"}
    doc = both.get(f"/v1/documents/{doc_id}").json()
    assert doc["status"] == "signed"
    assert doc["signers"] == [A, B]
    detail = both.get(f"/v1/workflows/{wf['id']}").json()
    assert detail["status"] == "completed"
    assert [(s["assignee"], s["decision"]) for s in detail["steps"]] == [
        (A, "approve"),
        (B, "approve"),
    ]
    assert detail["steps"][0]["comment"] == "looks good"
    assert all(s["decided_at"] for s in detail["steps"])


def test_reject_halts_and_returns_the_document_to_draft(both: httpx.Client) -> None:
    doc_id = new_document(both)
    wf = start(both, doc_id, [{"assignee": A}, {"assignee": B}])
    advance(both, wf["id"], "approve")
    response = advance(both, wf["id"], "reject", comment="missing clause 4")
    assert response.json()["status"] == "rejected"
    assert response.json()["last_decision"] == {"by": B, "decision": "reject"}
    assert status_of(both, doc_id) == "draft"
    steps = both.get(f"/v1/workflows/{wf['id']}").json()["steps"]
    assert [s["decision"] for s in steps] == ["approve", "reject"]
    # a rejected document can go through a new workflow
    again = start(both, doc_id, [{"assignee": C}])
    assert advance(both, again["id"], "approve").json()["status"] == "completed"
    assert both.get(f"/v1/documents/{doc_id}").json()["signers"] == [C]


def test_signers_are_distinct_in_step_order(api: httpx.Client) -> None:
    doc_id = new_document(api)
    wf = start(api, doc_id, [{"assignee": B}, {"assignee": A}, {"assignee": B}])
    for _ in range(3):
        advance(api, wf["id"], "approve")
    assert api.get(f"/v1/documents/{doc_id}").json()["signers"] == [B, A]


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_advancing_an_ended_workflow_is_409(api: httpx.Client, decision: str) -> None:
    wf = start(api, new_document(api), [{"assignee": A}])
    advance(api, wf["id"], "approve" if decision == "reject" else "reject")
    error = assert_envelope(advance(api, wf["id"], decision), 409, "conflict")
    assert "only in_progress" in error["message"]


@pytest.mark.parametrize("doc_id", ["doc_mock_signed", "doc_mock_locked"])
def test_workflow_on_a_non_draft_document_is_409(api: httpx.Client, doc_id: str) -> None:
    response = api.post("/v1/workflows", json={"document_id": doc_id, "steps": [{"assignee": A}]})
    assert_envelope(response, 409, "conflict")


def test_second_workflow_on_the_same_document_is_409(api: httpx.Client) -> None:
    doc_id = new_document(api)
    start(api, doc_id, [{"assignee": A}])
    response = api.post("/v1/workflows", json={"document_id": doc_id, "steps": [{"assignee": A}]})
    error = assert_envelope(response, 409, "conflict")
    assert "already has an in_progress workflow" in error["message"]
    response = api.post(
        "/v1/workflows", json={"document_id": "doc_mock_in_review", "steps": [{"assignee": A}]}
    )
    assert_envelope(response, 409, "conflict")


def test_advancing_after_the_document_was_deleted_is_409(api: httpx.Client) -> None:
    doc_id = new_document(api)
    wf = start(api, doc_id, [{"assignee": A}])
    assert api.delete(f"/v1/documents/{doc_id}").status_code == 200
    assert_envelope(advance(api, wf["id"], "approve"), 409, "conflict")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"steps": [{"assignee": A}]}, "document_id"),
        ({"document_id": "doc_mock_draft"}, "steps"),
        ({"document_id": 5, "steps": [{"assignee": A}]}, "document_id"),
        ({"document_id": "doc_mock_draft", "steps": []}, "steps"),
        ({"document_id": "doc_mock_draft", "steps": {"assignee": A}}, "steps"),
        ({"document_id": "doc_mock_draft", "steps": ["ann"]}, "steps[0]"),
        ({"document_id": "doc_mock_draft", "steps": [{}]}, "steps[0].assignee"),
        (
            {"document_id": "doc_mock_draft", "steps": [{"assignee": A}, {"assignee": "x"}]},
            "steps[1].assignee",
        ),
        (
            {"document_id": "doc_mock_draft", "steps": [{"assignee": A, "condition": 3}]},
            "steps[0].condition",
        ),
        (
            {"document_id": "doc_mock_draft", "steps": [{"assignee": A, "condition": "a =="}]},
            "steps[0].condition",
        ),
        (
            {
                "document_id": "doc_mock_draft",
                "steps": [{"assignee": A}, {"assignee": B, "condition": "(a"}],
            },
            "steps[1].condition",
        ),
        ({"document_id": "doc_mock_draft", "steps": [{"assignee": A}] * 21}, "steps"),
    ],
)
def test_create_validation(api: httpx.Client, body: dict[str, Any], param: str) -> None:
    error = assert_envelope(api.post("/v1/workflows", json=body), 422, "validation_error")
    assert error["param"] == param
    assert status_of(api, "doc_mock_draft") == "draft"


def test_bad_condition_message_names_the_position(api: httpx.Client) -> None:
    body = {"document_id": "doc_mock_draft", "steps": [{"assignee": A, "condition": "a == $"}]}
    error = assert_envelope(api.post("/v1/workflows", json=body), 422, "validation_error")
    assert "position" in error["message"]


def test_unknown_document_is_404_with_param(api: httpx.Client) -> None:
    response = api.post(
        "/v1/workflows", json={"document_id": "doc_nope", "steps": [{"assignee": A}]}
    )
    assert assert_envelope(response, 404, "not_found")["param"] == "document_id"


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "decision"),
        ({"decision": "maybe"}, "decision"),
        ({"decision": "approve", "comment": 3}, "comment"),
    ],
)
def test_advance_validation(api: httpx.Client, body: dict[str, Any], param: str) -> None:
    wf = start(api, new_document(api), [{"assignee": A}])
    response = api.post(f"/v1/workflows/{wf['id']}/advance", json=body)
    assert assert_envelope(response, 422, "validation_error")["param"] == param
    assert api.get(f"/v1/workflows/{wf['id']}").json()["current_step"] == 1


def test_unknown_workflow_is_404(both: httpx.Client) -> None:
    assert_envelope(both.get("/v1/workflows/wf_nope"), 404, "not_found")
    assert_envelope(advance(both, "wf_nope", "approve"), 404, "not_found")


def test_workflows_live_in_their_region(api: httpx.Client) -> None:
    doc_id = api.post("/eu/v1/documents", json={"title": "t", "vault_id": "vault_mock_eu"}).json()[
        "id"
    ]
    wf = api.post(
        "/eu/v1/workflows", json={"document_id": doc_id, "steps": [{"assignee": A}]}
    ).json()
    assert_envelope(api.get(f"/v1/workflows/{wf['id']}"), 404, "not_found")
    assert api.get(f"/eu/v1/workflows/{wf['id']}").status_code == 200


def test_scopes(api: httpx.Client) -> None:
    """Writes need `workflows:write`; the read-only key (every `:read` scope, same account)
    reads a workflow the full key started."""
    body = {"document_id": "doc_mock_draft", "steps": [{"assignee": A}]}
    error = assert_envelope(
        api.post("/v1/workflows", json=body, headers=auth(READONLY)), 403, "permission_error"
    )
    assert "workflows:write" in error["message"]
    wf = start(api, new_document(api), [{"assignee": A}])
    read = api.get(f"/v1/workflows/{wf['id']}", headers=auth(READONLY))
    assert read.status_code == 200, read.text
    assert read.json()["id"] == wf["id"]
    assert read.json() == api.get(f"/v1/workflows/{wf['id']}").json()  # what the full key sees
    decided = api.post(
        f"/v1/workflows/{wf['id']}/advance", json={"decision": "approve"}, headers=auth(READONLY)
    )
    assert "workflows:write" in assert_envelope(decided, 403, "permission_error")["message"]
    assert api.get(f"/v1/workflows/{wf['id']}").json() == read.json()  # nothing decided


def test_conditions_skip_steps(api: httpx.Client) -> None:
    doc_id = new_document(api, {"amount": 5000, "kind": "nda"})
    wf = start(
        api,
        doc_id,
        [
            {"assignee": A, "condition": "metadata.amount > 10000"},
            {"assignee": B, "condition": 'metadata.kind == "nda" and status == "in_review"'},
            {"assignee": C, "condition": "metadata.amount >= 100000 or metadata.missing"},
        ],
    )
    assert wf["current_step"] == 2  # step 1 skipped at creation
    done = advance(api, wf["id"], "approve").json()
    assert done["status"] == "completed"  # step 3 skipped, nothing left
    steps = api.get(f"/v1/workflows/{wf['id']}").json()["steps"]
    assert [s["decision"] for s in steps] == ["skipped", "approve", "skipped"]
    assert api.get(f"/v1/documents/{doc_id}").json()["signers"] == [B]


def test_every_step_skipped_completes_at_once(api: httpx.Client) -> None:
    doc_id = new_document(api, {"amount": 1})
    wf = start(api, doc_id, [{"assignee": A, "condition": "metadata.amount > 10"}])
    assert wf["status"] == "completed"
    doc = api.get(f"/v1/documents/{doc_id}").json()
    assert doc["status"] == "signed"
    assert doc["signers"] == []
