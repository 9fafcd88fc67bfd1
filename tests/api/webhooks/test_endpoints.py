"""`/v1/webhook_endpoints`: create, list, delete, validation, scopes, hosts and audit events.

Endpoints here point at a closed loopback port: these tests are about the resource, not about
delivery (tests/api/webhooks/test_delivery.py), and nothing here waits for an attempt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.domain.webhook_rules import ENDPOINTS_MAX, EVENT_TYPES
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import closed_port
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import EU, LIVE, READONLY, auth
from tests.support.webhooks import register

URL = f"http://127.0.0.1:{closed_port()}/hooks"


def test_create_answers_the_secret_once(both: httpx.Client) -> None:
    response = both.post(
        "/v1/webhook_endpoints", json={"url": URL, "events": ["signature.completed"]}
    )
    assert response.status_code == 201
    created = response.json()
    assert list(created) == [
        "id",
        "object",
        "url",
        "events",
        "signing_secret",
        "status",
        "created_at",
    ]
    assert created["id"].startswith("whk_")
    assert created["object"] == "webhook_endpoint"
    assert created["url"] == URL
    assert created["events"] == ["signature.completed"]
    assert created["signing_secret"].startswith("whsec_")
    assert len(created["signing_secret"]) > len("whsec_") + 20
    assert created["status"] == "active"
    assert created["created_at"] == "2026-01-15T09:00:00Z"
    listed = both.get("/v1/webhook_endpoints").json()
    assert listed == {
        "object": "list",
        "data": [{k: v for k, v in created.items() if k != "signing_secret"}],
    }
    assert "whsec_" not in both.get("/v1/webhook_endpoints").text


def test_each_endpoint_has_its_own_secret_and_the_list_is_newest_first(api: httpx.Client) -> None:
    first = register(api, URL, ["document.created"])
    second = register(api, f"https://localhost:{closed_port()}/in", ["*"])
    assert first["signing_secret"] != second["signing_secret"]
    assert [e["id"] for e in api.get("/v1/webhook_endpoints").json()["data"]] == [
        second["id"],
        first["id"],
    ]


def test_secrets_and_ids_are_deterministic(api: httpx.Client) -> None:
    before = register(api, URL)
    api.post("/_mock/reset")
    assert register(api, URL) == before


def test_delete_then_404(both: httpx.Client) -> None:
    created = register(both, URL)
    deleted = both.delete(f"/v1/webhook_endpoints/{created['id']}")
    assert deleted.status_code == 200
    assert deleted.json() == {"id": created["id"], "object": "webhook_endpoint", "deleted": True}
    assert both.get("/v1/webhook_endpoints").json()["data"] == []
    error = assert_envelope(both.delete(f"/v1/webhook_endpoints/{created['id']}"), 404, "not_found")
    assert created["id"] in error["message"]
    assert_envelope(both.delete("/v1/webhook_endpoints/whk_nope"), 404, "not_found")


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/in",
        "https://hooks.example.com:8443/in?tenant=1",
        "http://127.0.0.1:9000/hooks",
        "http://localhost/hooks",
        "http://LOCALHOST:80/",
        "http://[::1]:9000/hooks",
    ],
)
def test_accepted_urls(api: httpx.Client, url: str) -> None:
    # No event follows, so nothing is ever sent to these addresses.
    assert register(api, url, ["vault.created"])["url"] == url


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"events": ["*"]}, "url"),
        ({"url": None, "events": ["*"]}, "url"),
        ({"url": 5, "events": ["*"]}, "url"),
        ({"url": "", "events": ["*"]}, "url"),
        ({"url": "http://hooks.example.com/in", "events": ["*"]}, "url"),
        ({"url": "http://10.0.0.1/in", "events": ["*"]}, "url"),
        ({"url": "ftp://127.0.0.1/in", "events": ["*"]}, "url"),
        ({"url": "hooks.example.com/in", "events": ["*"]}, "url"),
        ({"url": "https:///in", "events": ["*"]}, "url"),
        ({"url": "https://hooks.example.com:99999/in", "events": ["*"]}, "url"),
        ({"url": "https://hooks.example.com/in#frag", "events": ["*"]}, "url"),
        ({"url": "https://hooks.example.com/a b", "events": ["*"]}, "url"),
        ({"url": "https://x.example/" + "a" * 2048, "events": ["*"]}, "url"),
        ({"url": URL}, "events"),
        ({"url": URL, "events": "*"}, "events"),
        ({"url": URL, "events": []}, "events"),
        ({"url": URL, "events": ["*"] * 101}, "events"),
        ({"url": URL, "events": ["document.exploded"]}, "events[0]"),
        ({"url": URL, "events": ["document.created", 7]}, "events[1]"),
        ({"url": URL, "events": ["document.created", "*"]}, "events[1]"),
        ({"url": URL, "events": ["*", "*"]}, "events[0]"),
        ({"url": URL, "events": ["Document.Created"]}, "events[0]"),
    ],
)
def test_validation(both: httpx.Client, body: dict[str, Any], param: str) -> None:
    error = assert_envelope(both.post("/v1/webhook_endpoints", json=body), 422, "validation_error")
    assert error["param"] == param
    assert both.get("/v1/webhook_endpoints").json()["data"] == []


@pytest.mark.parametrize(
    ("content", "status"),
    [(b"", 400), (b"{", 400), (b"[]", 400), (b"x" * (1024 * 1024 + 1), 413)],
)
def test_bad_bodies(api: httpx.Client, content: bytes, status: int) -> None:
    response = api.post(
        "/v1/webhook_endpoints", content=content, headers={"Content-Type": "application/json"}
    )
    assert_envelope(response, status, "bad_request")


def test_unknown_type_message_lists_the_known_ones(api: httpx.Client) -> None:
    response = api.post("/v1/webhook_endpoints", json={"url": URL, "events": ["doc.made"]})
    message = assert_envelope(response, 422, "validation_error")["message"]
    assert "doc.made" in message
    assert all(event_type in message for event_type in EVENT_TYPES)


def test_duplicates_are_dropped_in_order(api: httpx.Client) -> None:
    events = ["signature.completed", "document.locked", "signature.completed"]
    assert register(api, URL, events)["events"] == ["signature.completed", "document.locked"]


def test_every_known_type_can_be_subscribed(api: httpx.Client) -> None:
    assert register(api, URL, list(EVENT_TYPES))["events"] == list(EVENT_TYPES)


def test_at_most_sixteen_endpoints(api: httpx.Client) -> None:
    ids = [register(api, URL, ["vault.created"])["id"] for _ in range(ENDPOINTS_MAX)]
    response = api.post("/v1/webhook_endpoints", json={"url": URL, "events": ["*"]})
    assert_envelope(response, 409, "conflict")
    api.delete(f"/v1/webhook_endpoints/{ids[0]}")
    register(api, URL)


def test_scopes(api: httpx.Client) -> None:
    created = register(api, URL)
    readonly = auth(READONLY)
    assert api.get("/v1/webhook_endpoints", headers=readonly).status_code == 200
    error = assert_envelope(
        api.post("/v1/webhook_endpoints", json={"url": URL, "events": ["*"]}, headers=readonly),
        403,
        "permission_error",
    )
    assert "webhooks:write" in error["message"]
    assert_envelope(
        api.delete(f"/v1/webhook_endpoints/{created['id']}", headers=readonly),
        403,
        "permission_error",
    )
    assert_envelope(
        api.get("/v1/webhook_endpoints", headers={"Authorization": ""}),
        401,
        "authentication_error",
    )


def test_endpoints_belong_to_the_account_on_every_host(both: httpx.Client) -> None:
    created = register(both, URL)
    for path in ("/us/v1/webhook_endpoints", "/eu/v1/webhook_endpoints"):
        assert [e["id"] for e in both.get(path).json()["data"]] == [created["id"]]
    via_host = both.get("/v1/webhook_endpoints", headers={"Host": "eu.localhost"})
    assert [e["id"] for e in via_host.json()["data"]] == [created["id"]]
    # another account and the live environment see nothing and cannot delete it
    for key in (EU, LIVE):
        assert both.get("/v1/webhook_endpoints", headers=auth(key)).json()["data"] == []
        response = both.delete(f"/v1/webhook_endpoints/{created['id']}", headers=auth(key))
        assert_envelope(response, 404, "not_found")
    assert both.delete(f"/eu/v1/webhook_endpoints/{created['id']}").status_code == 200


def test_create_and_delete_are_audited_without_the_secret(api: httpx.Client) -> None:
    created = register(api, URL, ["document.locked"])
    api.delete(f"/v1/webhook_endpoints/{created['id']}")
    events = api.get(f"/v1/audit_logs?resource_id={created['id']}").json()["data"]
    assert [e["type"] for e in events] == ["webhook_endpoint.deleted", "webhook_endpoint.created"]
    for event in events:
        assert event["actor"] == "brooke.kelly@mock-us.example"
        assert event["data"]["id"] == created["id"]
        assert event["data"]["url"] == URL
        assert "signing_secret" not in event["data"]
        assert created["signing_secret"] not in str(event)
    # account-level: written to the default region (us), not to eu
    assert api.get(f"/eu/v1/audit_logs?resource_id={created['id']}").json()["data"] == []


def test_failed_requests_write_nothing(api: httpx.Client) -> None:
    head = api.get("/v1/audit_logs?limit=1").json()["data"][0]["seq"]
    api.post("/v1/webhook_endpoints", json={"url": "http://example.com", "events": ["*"]})
    api.delete("/v1/webhook_endpoints/whk_nope")
    assert api.get("/v1/audit_logs?limit=1").json()["data"][0]["seq"] == head


@pytest.fixture
def strict() -> Iterator[httpx.Client]:
    app = create_app(Settings(clock_mode="frozen", strict_webhook_urls=True))
    with inprocess_client(app, headers=auth()) as client:
        yield client


def test_strict_urls_refuse_plain_http_even_on_loopback(strict: httpx.Client) -> None:
    response = strict.post("/v1/webhook_endpoints", json={"url": URL, "events": ["*"]})
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == "url"
    assert "strict" in error["message"]
    assert register(strict, "https://127.0.0.1:9443/hooks")["url"].startswith("https://")
