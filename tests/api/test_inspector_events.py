"""The inspector's webhook page: its trigger form and the resend button of each event, over HTTP
without a browser; they run what `/_mock/events/...` runs."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import httpx

from mockserver.engine.control_plane.triggers import RECIPES
from mockserver.testing.receiver import WebhookReceiver

UI = "/_mock/ui"


def notice(response: httpx.Response) -> str:
    assert response.status_code == 303, response.text
    location = urlsplit(response.headers["location"])
    assert location.path == f"{UI}/webhooks"
    return parse_qs(location.query)["notice"][0]


def test_the_page_offers_every_event_type(api: httpx.Client) -> None:
    page = api.get(f"{UI}/webhooks").text
    assert 'action="/_mock/ui/events/trigger"' in page
    for event_type in RECIPES:
        assert f"<option>{event_type}</option>" in page


def test_trigger_form_makes_the_event_happen(api: httpx.Client) -> None:
    form = {"type": "document.created", "overrides": "title=From the inspector\nmetadata.n=7\n"}
    said = notice(api.post(f"{UI}/events/trigger", data=form))
    [event_id] = re.findall(r"evt_\w+", said)
    assert said.startswith("Triggered document.created: ")
    [event] = api.get("/v1/audit_logs", params={"type": "document.created", "limit": 1}).json()[
        "data"
    ]
    assert event["id"] == event_id
    assert event["data"]["title"] == "From the inspector"
    assert event["data"]["metadata"] == {"n": 7}  # read as JSON


def test_trigger_form_refusals_change_nothing(api: httpx.Client) -> None:
    before = api.get("/v1/vaults").json()["data"]
    line = api.post(f"{UI}/events/trigger", data={"type": "vault.created", "overrides": "name"})
    assert line.status_code == 422
    assert line.json()["error"]["param"] == "overrides"
    assert "line 1" in line.json()["error"]["message"]
    field = api.post(f"{UI}/events/trigger", data={"type": "vault.created", "overrides": "x=1"})
    assert field.status_code == 422
    assert field.json()["error"]["param"] == "overrides.x"
    unknown = api.post(f"{UI}/events/trigger", data={"type": "nothing.happened"})
    assert unknown.status_code == 422
    assert unknown.json()["error"]["param"] == "type"
    assert api.get("/v1/vaults").json()["data"] == before


def test_resend_button_sends_the_event_again(api: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        api.post("/v1/webhook_endpoints", json={"url": receiver.url, "events": ["vault.created"]})
        notice(api.post(f"{UI}/events/trigger", data={"type": "vault.created"}))
        api.post("/_mock/webhooks/wait", json={"timeout": 10})
        page = api.get(f"{UI}/webhooks").text
        found = re.search(r'action="/_mock/ui/events/(evt_\w+)/resend"', page)
        assert found is not None
        said = notice(api.post(f"{UI}/events/{found.group(1)}/resend"))
        assert said.endswith(f"{found.group(1)} sent again.")
        api.post("/_mock/webhooks/wait", json={"timeout": 10})
        first, second = receiver.wait_for(2)
    assert first.body == second.body
    assert json.loads(second.body)["id"] == found.group(1)
    assert api.post(f"{UI}/events/evt_missing/resend").status_code == 404
