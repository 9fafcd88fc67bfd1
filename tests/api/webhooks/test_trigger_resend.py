"""`POST /_mock/events/trigger` and `POST /_mock/events/{evt_id}/resend`, in-process: every event
type can be made to happen through the API, the journal and the audit log see the requests, and
a resend goes through the delivery engine with the same id and body."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.engine.control_plane.triggers import RECIPES, overridable, parse_override
from mockserver.openapi.webhooks import EVENT_TYPES
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.keys import auth
from tests.support.webhooks import advance, deliveries, register, settle, t_of

UNSET = object()


def assert_error(response: httpx.Response, status: int, type: str, param: object = UNSET) -> None:
    """The service's envelope with this status and type (and param, when given)."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["type"] == type
    assert error["message"]
    assert error["request_id"].startswith("req_")
    if param is not UNSET:
        assert error.get("param") == param, error


def trigger(client: httpx.Client, event_type: str, **overrides: object) -> dict[str, object]:
    response = client.post(
        "/_mock/events/trigger", json={"type": event_type, "overrides": overrides}
    )
    assert response.status_code == 200, response.text
    made: dict[str, object] = response.json()
    return made


def test_every_event_type_of_the_openapi_document_has_a_recipe() -> None:
    assert sorted(RECIPES) == sorted(EVENT_TYPES)


def test_every_type_happens_for_real(inproc: httpx.Client) -> None:
    """Each recipe writes its events to the audit log, through journaled API requests."""
    for event_type in RECIPES:
        made = trigger(inproc, event_type)
        assert made["event_type"] == event_type
        event_ids = made["event_ids"]
        assert isinstance(event_ids, list)
        assert len(event_ids) == 1, (event_type, made)
        audit = inproc.get("/v1/audit_logs", params={"type": event_type, "limit": 100}).json()
        assert event_ids[0] in {e["id"] for e in audit["data"]}, event_type
    journal = inproc.get("/_mock/requests", params={"limit": 1000}).json()["data"]
    agent = "mockserver-trigger/1"
    made_by_trigger = [e for e in journal if e["request"]["headers"].get("user-agent") == agent]
    paths = {(e["method"], e["path"]) for e in made_by_trigger}
    assert ("POST", "/us/v1/documents") in paths
    assert ("POST", "/v1/webhook_endpoints") in paths
    assert all(e["status"] < 300 for e in made_by_trigger)
    # The trigger's own endpoints were deleted again.
    assert inproc.get("/v1/webhook_endpoints").json()["data"] == []


def test_document_locked_moves_the_clock_past_the_lock(inproc: httpx.Client) -> None:
    before = inproc.get("/_mock/clock").json()["now"]
    made = trigger(inproc, "document.locked")
    objects = made["objects"]
    assert isinstance(objects, dict)
    doc = inproc.get(f"/v1/documents/{objects['document']}").json()
    assert doc["status"] == "locked"
    assert inproc.get("/_mock/clock").json()["now"] > before
    [event] = inproc.get(f"/v1/audit_logs?resource_id={doc['id']}&type=document.locked").json()[
        "data"
    ]
    assert event["actor"] == "system"


def test_overrides_set_the_event_data(inproc: httpx.Client) -> None:
    made = trigger(
        inproc, "document.created", title="Board minutes", region="eu", **{"metadata.kind": "nda"}
    )
    [event] = inproc.get(
        "/eu/v1/audit_logs", params={"type": "document.created", "limit": 1}
    ).json()["data"]
    assert [event["id"]] == made["event_ids"]
    assert event["data"]["title"] == "Board minutes"
    assert event["data"]["region"] == "eu"
    assert event["data"]["metadata"] == {"kind": "nda"}


def test_refusals_name_the_field(inproc: httpx.Client) -> None:
    def post(body: object) -> httpx.Response:
        return inproc.post("/_mock/events/trigger", json=body)

    unknown = post({"type": "document.exploded"})
    assert_error(unknown, 422, "validation_error", param="type")
    assert "document.created" in unknown.json()["error"]["message"]
    field = post({"type": "vault.created", "overrides": {"sha256": "x"}})
    assert_error(field, 422, "validation_error", param="overrides.sha256")
    assert "name, region" in field.json()["error"]["message"]
    # A value the API refuses: the API's own error, its param named as the override.
    bad = post({"type": "signature.completed", "overrides": {"signer": "not an email"}})
    assert_error(bad, 422, "validation_error", param="overrides.signer")
    assert "POST /us/v1/workflows" in bad.json()["error"]["message"]
    assert_error(post({"type": "vault.created", "overrides": []}), 422, "validation_error")
    assert_error(post({}), 422, "validation_error", param="type")
    wrong_key = post({"type": "vault.created", "key": "sk_test_nobody"})
    assert_error(wrong_key, 401, "authentication_error")


def test_parse_override_reads_json_else_text() -> None:
    assert parse_override("amount=12000") == ("amount", 12000)
    assert parse_override('metadata={"a": "b"}') == ("metadata", {"a": "b"})
    assert parse_override("title=Board minutes") == ("title", "Board minutes")
    assert parse_override("title=") == ("title", "")
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        parse_override("title")


def test_resend_sends_the_same_event_signed_again(inproc: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        endpoint = register(inproc, receiver.url, ["vault.created"])
        [event_id] = trigger(inproc, "vault.created")["event_ids"]  # type: ignore[misc]
        first = receiver.wait_for(1)[0]
        settle(inproc)
        advance(inproc, 7)
        response = inproc.post(f"/_mock/events/{event_id}/resend")
        assert response.status_code == 202, response.text
        [copy] = response.json()["data"]
        [original] = deliveries(inproc, event_id=event_id)[:1]
        assert copy["redelivery_of"] == original["id"]
        assert copy["endpoint_id"] == endpoint["id"]
        second = receiver.wait_for(2)[1]
        settle(inproc)
    assert second.body == first.body
    assert json.loads(second.body)["id"] == event_id
    assert t_of(second) == t_of(first) + 7
    assert second.headers["x-service-signature"] != first.headers["x-service-signature"]


def test_resend_of_an_event_delivered_to_no_one(inproc: httpx.Client) -> None:
    """Built from the audit log: the envelope of the event as it was written."""
    [event_id] = trigger(inproc, "vault.created")["event_ids"]  # type: ignore[misc]
    assert_error(inproc.post(f"/_mock/events/{event_id}/resend"), 409, "conflict")
    with WebhookReceiver() as receiver:
        endpoint = register(inproc, receiver.url, ["document.created"])  # another type
        response = inproc.post(
            f"/_mock/events/{event_id}/resend", json={"endpoint_id": endpoint["id"]}
        )
        assert response.status_code == 202, response.text
        [request] = receiver.wait_for(1)
        settle(inproc)
    event = json.loads(request.body)
    [audited] = inproc.get("/v1/audit_logs", params={"type": "vault.created", "limit": 1}).json()[
        "data"
    ]
    assert event == {
        "id": event_id,
        "type": "vault.created",
        "created_at": audited["at"],
        "data": audited["data"],
    }


def test_resend_refusals(inproc: httpx.Client) -> None:
    unknown = inproc.post("/_mock/events/evt_nothing/resend")
    assert_error(unknown, 404, "not_found")
    [event_id] = trigger(inproc, "vault.created")["event_ids"]  # type: ignore[misc]
    missing = inproc.post(f"/_mock/events/{event_id}/resend", json={"endpoint_id": "whk_gone"})
    assert_error(missing, 404, "not_found", param="endpoint_id")
    typed = inproc.post(f"/_mock/events/{event_id}/resend", json={"endpoint_id": 7})
    assert_error(typed, 422, "validation_error", param="endpoint_id")


def test_deliveries_after_one_list_only_the_later_ones(inproc: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        endpoint = register(inproc, receiver.url, ["vault.created"])
        for _ in range(3):
            trigger(inproc, "vault.created")
        receiver.wait_for(3)
        settle(inproc)
    every = deliveries(inproc, endpoint_id=endpoint["id"])
    later = deliveries(inproc, endpoint_id=endpoint["id"], after=every[0]["id"])
    assert [d["id"] for d in later] == [d["id"] for d in every[1:]]
    assert deliveries(inproc, endpoint_id=endpoint["id"], after=every[-1]["id"]) == []
    gone = inproc.get("/_mock/webhooks/deliveries", params={"after": "whd_nothing"})
    assert_error(gone, 404, "not_found", param="after")


def test_the_guide_lists_every_type_and_its_override_fields() -> None:
    guide = Path(__file__).resolve().parents[3] / "docs" / "guides" / "webhooks.md"
    rows = re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \| [^|]+ \| (.+) \|$", guide.read_text(), re.M)
    table = {event_type: re.findall(r"`([^`]+)`", fields) for event_type, fields in rows}
    assert table == {event_type: overridable(event_type) for event_type in RECIPES}


def test_trigger_behind_an_admin_token() -> None:
    """The recipe's control-plane calls (a legal hold, here) pass the guard the trigger passed."""
    app = create_app(Settings(clock_mode="frozen", admin_token="s3cret"))
    with inprocess_client(app, headers=auth()) as client:
        body = {"type": "document.legal_hold_placed"}
        assert client.post("/_mock/events/trigger", json=body).status_code == 401
        response = client.post(
            "/_mock/events/trigger", json=body, headers={"X-Mock-Admin-Token": "s3cret"}
        )
        assert response.status_code == 200, response.text
        assert len(response.json()["event_ids"]) == 1
