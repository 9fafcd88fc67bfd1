"""What a receiver gets: signed envelopes of every lifecycle event, for its subscriptions only.

Every test here has a real receiver on a loopback port; signatures are checked with Stripe's
library and with the webhook guide's recipe.
"""

from __future__ import annotations

import json

import httpx
import pytest
import stripe

from mockserver.domain.webhook_rules import EVENT_TYPES
from mockserver.testing.receiver import WebhookReceiver, closed_port
from tests.support.keys import EU, LIVE, auth
from tests.support.webhooks import (
    START,
    advance,
    deliveries,
    new_document,
    register,
    settle,
    t_of,
    verify_both,
    verify_recipe,
)

A, B = "ann@example.com", "ben@example.com"


def test_a_write_is_delivered_signed(client: httpx.Client, receiver: WebhookReceiver) -> None:
    endpoint = register(client, receiver.url, ["document.created"])
    doc_id = new_document(client)
    [request] = receiver.wait_for(1)
    assert request.path == "/hooks"
    assert request.headers["content-type"] == "application/json"
    assert t_of(request) == START
    verify_both(request, endpoint["signing_secret"], now=START)
    event = json.loads(request.body)
    assert list(event) == ["id", "type", "created_at", "data"]
    audit = client.get(f"/v1/audit_logs?resource_id={doc_id}").json()["data"][0]
    assert event["id"] == audit["id"]
    assert event["type"] == "document.created"
    assert event["created_at"] == audit["at"] == "2026-01-15T09:00:00Z"
    assert event["data"] == audit["data"] == client.get(f"/v1/documents/{doc_id}").json()


def test_the_production_tolerance_needs_the_mock_clock(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    """`t` is the mock clock: frozen in January 2026, it is older than a wall-clock tolerance
    allows, so a receiver checks it against the mock's clock, or skips the age check."""
    secret = register(inproc, receiver.url, ["vault.created"])["signing_secret"]
    inproc.post("/v1/vaults", json={"name": "V", "region": "us"})
    [request] = receiver.wait_for(1)
    header = request.headers["x-service-signature"]
    with pytest.raises(stripe.SignatureVerificationError, match="tolerance"):
        stripe.WebhookSignature.verify_header(request.body, header, secret, 300)
    assert verify_recipe(request.body, header, secret, now=START + 299)
    assert not verify_recipe(request.body, header, secret, now=START + 301)


def test_signature_completed_carries_exactly_the_four_fields(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    endpoint = register(client, receiver.url, ["signature.completed"])
    doc_id = new_document(client)
    steps = [{"assignee": A}, {"assignee": B}]
    wf = client.post("/v1/workflows", json={"document_id": doc_id, "steps": steps}).json()
    for _ in steps:
        client.post(f"/v1/workflows/{wf['id']}/advance", json={"decision": "approve"})
    received = receiver.wait_for(2)
    events = [json.loads(r.body) for r in received]
    assert [e["type"] for e in events] == ["signature.completed"] * 2
    assert [e["data"] for e in events] == [
        {"document_id": doc_id, "signer": A, "ip_verified": True, "vault_id": "vault_mock_us"},
        {"document_id": doc_id, "signer": B, "ip_verified": True, "vault_id": "vault_mock_us"},
    ]
    for request in received:
        verify_both(request, endpoint["signing_secret"], now=START)


def test_document_locked_is_sent_by_the_clock_move_that_locks(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    register(client, receiver.url, ["document.locked"])
    moved = advance(client, 240)  # doc_mock_signed locks 240 s after the start
    # The advance awaited the delivery: it has arrived when the call returns.
    locked = [json.loads(r.body) for r in receiver.received]
    assert moved["timers_run"] >= 2
    mine = [e for e in locked if e["data"]["id"] == "doc_mock_signed"]
    assert len(mine) == 1
    assert mine[0]["data"]["status"] == "locked"
    assert mine[0]["created_at"] == "2026-01-15T09:04:00Z"
    audit = client.get("/v1/audit_logs?resource_id=doc_mock_signed&limit=1").json()["data"][0]
    assert (audit["id"], audit["actor"]) == (mine[0]["id"], "system")


def test_only_subscribed_types_reach_an_endpoint(client: httpx.Client) -> None:
    with WebhookReceiver() as docs, WebhookReceiver() as vaults:
        register(client, docs.url, ["document.created"])
        register(client, vaults.url, ["vault.created"])
        vault_id = client.post("/v1/vaults", json={"name": "V", "region": "us"}).json()["id"]
        doc_id = new_document(client)
        client.delete(f"/v1/documents/{doc_id}")
        settle(client)
        assert [json.loads(r.body)["data"]["id"] for r in docs.received] == [doc_id]
        assert [json.loads(r.body)["data"]["id"] for r in vaults.received] == [vault_id]


def test_other_accounts_and_environments_are_not_delivered(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    register(inproc, receiver.url)
    inproc.post("/v1/vaults", json={"name": "EU", "region": "eu"}, headers=auth(EU))
    inproc.post("/v1/vaults", json={"name": "Live", "region": "us"}, headers=auth(LIVE))
    settle(inproc)
    assert receiver.received == []
    assert deliveries(inproc) == []


def test_a_new_endpoint_gets_the_creation_of_later_endpoints_not_its_own(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    first = register(inproc, receiver.url)
    second = register(inproc, receiver.url)
    inproc.delete(f"/v1/webhook_endpoints/{first['id']}")
    settle(inproc)
    # first saw second's creation; nobody saw first's deletion (second subscribes too, and did)
    sent = [(d["endpoint_id"], d["event_type"]) for d in deliveries(inproc)]
    assert sent == [
        (first["id"], "webhook_endpoint.created"),
        (second["id"], "webhook_endpoint.deleted"),
    ]
    assert "signing_secret" not in receiver.received[0].body.decode()


def test_every_lifecycle_event_is_delivered_as_audited(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    """Each event the lifecycle writes reaches a `*` endpoint, once, in order, with the audit
    event's id, time and data; and every type written is one an endpoint can subscribe to."""
    endpoint = register(inproc, receiver.url)
    chains = ("/us/v1/audit_logs", "/eu/v1/audit_logs")
    since = {chain: inproc.get(f"{chain}?limit=1").json()["data"][0]["seq"] for chain in chains}
    vault_id = inproc.post("/v1/vaults", json={"name": "V", "region": "us"}).json()["id"]
    signed = new_document(inproc)
    wf = inproc.post(
        "/v1/workflows",
        json={"document_id": signed, "steps": [{"assignee": A}, {"assignee": B}]},
    ).json()
    inproc.post(f"/v1/workflows/{wf['id']}/advance", json={"decision": "approve"})
    inproc.post(f"/v1/workflows/{wf['id']}/advance", json={"decision": "approve"})
    rejected = new_document(inproc)
    wf2 = inproc.post(
        "/v1/workflows", json={"document_id": rejected, "steps": [{"assignee": A}]}
    ).json()
    inproc.post(f"/v1/workflows/{wf2['id']}/advance", json={"decision": "reject"})
    inproc.post(f"/_mock/documents/{rejected}/legal_hold", json={"on": True})
    inproc.post(f"/_mock/documents/{rejected}/legal_hold", json={"on": False})
    inproc.delete(f"/v1/documents/{rejected}")
    inproc.post("/v1/audit_logs/export", json={"period": "2026-01-01/2026-01-31"})
    other = register(inproc, f"http://127.0.0.1:{closed_port()}/x", ["vault.created"])
    inproc.delete(f"/v1/webhook_endpoints/{other['id']}")
    advance(inproc, 300)  # locks both the seeded signed documents and the new one
    settle(inproc)

    received = [json.loads(r.body) for r in receiver.received]
    total = 0
    for chain in chains:  # each region's chain, in its order (eu: seeded documents locking)
        audited = [
            (e["id"], e["type"], e["at"], e["data"])
            for e in reversed(inproc.get(f"{chain}?limit=100").json()["data"])
            if e["seq"] > since[chain]
        ]
        ids = {event[0] for event in audited}
        assert audited
        total += len(audited)
        assert [
            (e["id"], e["type"], e["created_at"], e["data"]) for e in received if e["id"] in ids
        ] == audited
    assert len(received) == total  # each event once, nothing else
    assert {e["type"] for e in received} == set(EVENT_TYPES)
    assert vault_id in {e["data"].get("id") for e in received}
    for request in receiver.received:
        verify_both(request, endpoint["signing_secret"], now=t_of(request))
