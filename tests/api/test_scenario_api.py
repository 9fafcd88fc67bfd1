"""`/_mock/scenarios`: loading by name and inline, listing, unloading, reset, and setup."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope, clock_advance
from tests.support.keys import READONLY, auth
from tests.support.scenarios import alias_bomb, load


def test_load_by_name(both: httpx.Client) -> None:
    response = both.post("/_mock/scenarios", json={"name": "legal_hold"})
    assert response.status_code == 201
    assert response.json()["name"] == "legal_hold"
    assert_envelope(both.delete("/v1/documents/doc_qa_held_contract"), 409, "conflict")
    listed = both.get("/_mock/scenarios").json()
    assert [s["name"] for s in listed["data"]] == ["legal_hold"]
    assert {"legal_hold", "rate_limit_burst", "webhook_failures"} <= set(listed["available"])


@pytest.mark.parametrize(
    ("body", "status", "param"),
    [
        ({}, 422, "name"),
        ({"name": "legal_hold", "yaml": "name: x"}, 422, "name"),
        ({"name": "no_such_scenario"}, 404, "name"),
        ({"name": "../seeds/default"}, 404, "name"),
        ({"name": 5}, 422, "name"),
        ({"yaml": ["name: x"]}, 422, "yaml"),
    ],
)
def test_load_errors(api: httpx.Client, body: dict[str, object], status: int, param: str) -> None:
    response = api.post("/_mock/scenarios", json=body)
    assert response.status_code == status
    assert response.json()["error"]["param"] == param
    assert api.get("/_mock/scenarios").json()["data"] == []


def test_a_bad_inline_scenario_is_422_with_its_line_and_changes_nothing(
    both: httpx.Client,
) -> None:
    text = textwrap.dedent(
        """\
        name: half
        clock: {advance: 3600}
        setup:
          - legal_hold: {document: doc_mock_in_review}
          - add_document: {vault_id: vault_nowhere, title: t}
        rules:
          - name: r
            respond: {status: 500}
        """
    )
    response = both.post("/_mock/scenarios", json={"yaml": text, "source": "half.yaml"})
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == "yaml"
    assert error["message"].startswith("half.yaml:5: setup[1].add_document.vault_id: no vault")
    # nothing applied: no hold, no rule, the clock did not move
    assert both.get("/v1/documents/doc_mock_in_review").json()["legal_hold"] is False
    assert both.get("/v1/whoami").status_code == 200
    assert both.get("/_mock/clock").json()["now"] == "2026-01-15T09:00:00Z"
    assert both.get("/_mock/scenarios").json()["data"] == []


def test_a_bad_inline_scenario_names_every_problem_one_a_line(api: httpx.Client) -> None:
    text = (
        "name: two\nsetup:\n  - revoke_key: {key: sk_test_nobody}\n"
        "  - add_document: {vault_id: vault_nowhere, title: t}\n"
    )
    response = api.post("/_mock/scenarios", json={"yaml": text, "source": "two.yaml"})
    error = assert_envelope(response, 422, "validation_error")
    assert error["message"].splitlines() == [
        "two.yaml:3: setup[0].revoke_key.key: unknown key 'sk_test_nobody'",
        "two.yaml:4: setup[1].add_document.vault_id: no vault 'vault_nowhere' "
        "for key sk_test_mock_full",
    ]


def test_syntax_errors_carry_the_inline_source(api: httpx.Client) -> None:
    response = api.post("/_mock/scenarios", json={"yaml": "name: x\nrules: [\n"})
    assert response.json()["error"]["message"].startswith("<inline>:3: invalid YAML")


def test_yaml_aliases_are_refused_and_change_nothing(api: httpx.Client) -> None:
    """A few hundred bytes of nested aliases would answer megabytes; they are refused."""
    response = api.post("/_mock/scenarios", json={"yaml": alias_bomb(6), "source": "bomb.yaml"})
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == "yaml"
    assert error["message"].startswith("bomb.yaml:9: YAML aliases are not allowed (found '*a')")
    assert api.get("/_mock/scenarios").json()["data"] == []
    assert len(api.get("/v1/whoami").content) < 10_000


def test_unload_disarms_but_keeps_state(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        setup:
          - legal_hold: {document: doc_mock_in_review}
        rules:
          - name: r
            match: {path: /v1/whoami}
            respond: {status: 500}
        deprecations:
          - {path: /v1/vaults, deprecation: 2026-01-01T00:00:00Z, sunset: 2027-01-01T00:00:00Z}
        timeline:
          - after: 10
            do: [{revoke_key: {key: sk_test_mock_readonly}}]
        """,
    )
    assert both.get("/v1/whoami").status_code == 500
    assert both.delete("/_mock/scenarios").json() == {"unloaded": 1}
    assert both.get("/v1/whoami").status_code == 200
    assert "deprecation" not in both.get("/v1/vaults").headers
    assert both.get("/v1/documents/doc_mock_in_review").json()["legal_hold"] is True
    clock_advance(both, 60)  # the timeline was cancelled
    assert both.get("/v1/whoami", headers=auth(READONLY)).status_code == 200
    assert both.get("/_mock/scenarios").json()["data"] == []


def test_reset_unloads_and_restores(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        clock: {set: 2026-06-01T00:00:00Z}
        setup:
          - revoke_key: {key: sk_test_mock_readonly}
        rules:
          - name: r
            match: {path: /v1/whoami, key: sk_test_mock_full}
            respond: {status: 500}
        """,
    )
    assert both.get("/v1/whoami").status_code == 500
    assert both.get("/_mock/clock").json()["now"] == "2026-06-01T00:00:00Z"
    assert both.get("/v1/whoami", headers=auth(READONLY)).status_code == 401
    both.post("/_mock/reset")
    assert both.get("/v1/whoami").status_code == 200
    assert both.get("/v1/whoami", headers=auth(READONLY)).status_code == 200
    assert both.get("/_mock/scenarios").json()["data"] == []
    assert both.get("/_mock/clock").json()["now"] == "2026-01-15T09:00:00Z"


def test_loading_a_name_again_replaces_it(api: httpx.Client) -> None:
    scenario = "name: t\nrules:\n  - {name: r, match: {path: /v1/whoami}, respond: {status: 5XX}}\n"
    load(api, scenario.replace("5XX", "500"))
    load(api, scenario.replace("5XX", "502"))
    assert api.get("/v1/whoami").status_code == 502
    assert len(api.get("/_mock/scenarios").json()["data"]) == 1


def test_setup_adds_objects_through_the_domain(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        clock: {advance: 60}
        setup:
          - add_vault:
              id: vault_qa_eu
              name: QA (EU)
              region: eu
              members: [qa@example.com]
          - add_document:
              id: doc_qa_1
              vault_id: vault_qa_eu
              title: QA contract
              metadata: {amount: 5}
          - add_workflow:
              id: wf_qa_1
              document_id: doc_qa_1
              steps: [{assignee: a@example.com}, {assignee: b@example.com}]
          - advance_workflow: {workflow: wf_qa_1, decision: approve, comment: ok}
        """,
    )
    vault = both.get("/eu/v1/vaults/vault_qa_eu").json()
    assert vault["members"] == [
        {"email": "brooke.kelly@mock-us.example", "role": "owner"},
        {"email": "qa@example.com", "role": "member"},
    ]
    doc = both.get("/eu/v1/documents/doc_qa_1").json()
    assert doc["status"] == "in_review"
    assert doc["created_at"] == "2026-01-15T09:01:00Z"
    workflow = both.get("/eu/v1/workflows/wf_qa_1").json()
    assert workflow["current_step"] == 2
    assert workflow["steps"][0]["comment"] == "ok"
    assert both.get("/v1/documents/doc_qa_1").status_code == 404  # residency holds
    events = both.get("/eu/v1/audit_logs", params={"resource_id": "doc_qa_1"}).json()["data"]
    assert {e["actor"] for e in events} == {"brooke.kelly@mock-us.example"}


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("revoke_key: {key: sk_test_nobody}", "key: unknown key 'sk_test_nobody'"),
        ("legal_hold: {document: doc_nowhere}", "document: no document 'doc_nowhere'"),
        ("add_vault: {id: vault_mock_us, name: x, region: us}", "id: the id 'vault_mock_us' is"),
        ("add_document: {key: sk_test_mock_eu, vault_id: vault_mock_us, title: t}", "no vault"),
        ("add_document: {vault_id: vault_mock_us, title: ''}", "title:"),
        ("add_document: {vault_id: vault_mock_us, title: t, metadata: {a: [1]}}", "metadata:"),
        ("add_vault: {name: x, region: us, members: [not-an-email]}", "members:"),
        ("add_workflow: {document_id: doc_mock_signed, steps: [{assignee: a@b.co}]}", "signed"),
        ("add_workflow: {document_id: doc_mock_draft, steps: [{assignee: nobody}]}", "steps"),
        ("advance_workflow: {workflow: wf_nowhere, decision: approve}", "no workflow"),
        ("add_webhook_endpoint: {url: ftp://x, events: ['*']}", "url: url must be"),
    ],
)
def test_setup_checks_refuse_before_applying(api: httpx.Client, action: str, message: str) -> None:
    text = f"name: t\nsetup:\n  - legal_hold: {{document: doc_mock_in_review}}\n  - {action}\n"
    response = api.post("/_mock/scenarios", json={"yaml": text})
    error = assert_envelope(response, 422, "validation_error")
    assert error["message"].startswith("<inline>:4: setup[1]."), error["message"]
    assert message in error["message"]
    assert api.get("/v1/documents/doc_mock_in_review").json()["legal_hold"] is False


def test_later_actions_may_name_what_earlier_ones_add(api: httpx.Client) -> None:
    load(
        api,
        """
        name: t
        setup:
          - add_vault: {id: vault_qa, name: QA, region: us}
          - add_document: {id: doc_qa, vault_id: vault_qa, title: t}
          - legal_hold: {document: doc_qa}
          - add_workflow: {id: wf_qa, document_id: doc_qa, steps: [{assignee: a@example.com}]}
          - advance_workflow: {workflow: wf_qa, decision: reject}
        """,
    )
    doc = api.get("/v1/documents/doc_qa").json()
    assert (doc["status"], doc["legal_hold"]) == ("draft", True)


def test_a_failing_timeline_action_is_reported_not_raised(api: httpx.Client) -> None:
    load(
        api,
        """
        name: t
        timeline:
          - after: 30
            do: [{advance_workflow: {workflow: wf_mock_in_review, decision: reject}}]
        """,
    )
    api.post("/v1/workflows/wf_mock_in_review/advance", json={"decision": "reject"})
    clock_advance(api, 30)
    summary = api.get("/_mock/scenarios").json()
    assert len(summary["timeline_errors"]) == 1
    assert summary["timeline_errors"][0].startswith("<inline>:5: timeline[0].do[0]")
    assert "rejected" in summary["timeline_errors"][0]
    assert summary["data"][0]["timeline"][0]["done"] is True


def test_scenario_webhook_endpoints_are_real_endpoints(api: httpx.Client) -> None:
    load(
        api,
        """
        name: t
        setup:
          - add_webhook_endpoint: {id: whk_qa, url: "https://r.example/h", events: ["*"]}
        """,
    )
    assert api.get("/_mock/scenarios").json()["pending_webhook_endpoints"] == []
    listed = api.get("/v1/webhook_endpoints").json()["data"]
    assert [(e["id"], e["url"], e["events"]) for e in listed] == [
        ("whk_qa", "https://r.example/h", ["*"])
    ]


@pytest.fixture
def guarded() -> Iterator[httpx.Client]:
    app = create_app(Settings(clock_mode="frozen", admin_token="s3cret"))
    with inprocess_client(app, headers=auth()) as client:
        yield client


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/_mock/scenarios", None, 200),
        ("POST", "/_mock/scenarios", {"name": "legal_hold"}, 201),
        ("DELETE", "/_mock/scenarios", None, 200),
        ("GET", "/_mock/requests", None, 200),
        ("POST", "/_mock/accounts", None, 201),
    ],
)
def test_the_admin_token_guards_every_new_endpoint(
    guarded: httpx.Client, method: str, path: str, body: dict[str, str] | None, status: int
) -> None:
    assert_envelope(guarded.request(method, path, json=body), 401, "authentication_error")
    token = {"X-Mock-Admin-Token": "s3cret"}
    assert guarded.request(method, path, json=body, headers=token).status_code == status


def test_no_admin_means_no_control_plane() -> None:
    app = create_app(Settings(clock_mode="frozen", admin=False))
    with inprocess_client(app, headers=auth()) as client:
        assert client.get("/_mock/scenarios").status_code == 404
        assert client.get("/_mock/requests").status_code == 404
