"""Retries on the mock clock, per-endpoint ordering, failures of every kind, deletion.

Receivers are scripted (fail N times, hold, hang, refuse); the clock only moves when told, and a
clock move returns after the attempts it made due, so every count here is exact.
"""

from __future__ import annotations

import json

import httpx
from starlette.applications import Starlette

from mockserver.core.clock import format_ts as _ts
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import HANG, HOLD, WebhookReceiver, closed_port, release_port
from mockserver.webhooks.deliveries import RETRY_OFFSETS
from tests.support.api import assert_envelope
from tests.support.keys import auth
from tests.support.webhooks import (
    START,
    advance,
    deliveries,
    new_document,
    register,
    settle,
    t_of,
    verify_both,
)


def event_ids(receiver: WebhookReceiver) -> list[str]:
    return [json.loads(r.body)["id"] for r in receiver.received]


def test_a_receiver_failing_n_times_sees_exactly_the_scheduled_retries(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    secret = register(client, receiver.url, ["document.created"])["signing_secret"]
    receiver.respond(500, 503, 404)  # then 200
    new_document(client)
    settle(client)
    assert len(receiver.received) == 1
    now = 0
    for attempt, offset in enumerate(RETRY_OFFSETS[1:4], start=2):
        [pending] = deliveries(client)
        assert pending["status"] == "pending"
        assert pending["next_attempt_at"] == _ts(START + offset)
        advance(client, offset - now - 1)
        assert len(receiver.received) == attempt - 1  # not a second early
        advance(client, 1)
        assert len(receiver.received) == attempt  # on time, and already there
        assert t_of(receiver.received[-1]) == START + offset
        now = offset
    [done] = deliveries(client)
    assert done["status"] == "succeeded"
    assert done["next_attempt_at"] is None
    assert [(a["at"], a["status_code"]) for a in done["attempts"]] == [
        (_ts(START + RETRY_OFFSETS[0]), 500),
        (_ts(START + RETRY_OFFSETS[1]), 503),
        (_ts(START + RETRY_OFFSETS[2]), 404),
        (_ts(START + RETRY_OFFSETS[3]), 200),
    ]
    assert [a["error"] is None for a in done["attempts"]] == [False, False, False, True]
    # the body is made once: every retry is byte-identical but for the signature's t
    assert len({r.body for r in receiver.received}) == 1
    assert len({r.headers["x-service-signature"] for r in receiver.received}) == 4
    for request in receiver.received:
        verify_both(request, secret, now=t_of(request))
    advance(client, 86400)
    assert len(receiver.received) == 4


def test_after_24_hours_of_failures_the_delivery_fails_and_the_next_event_flows(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    register(inproc, receiver.url, ["document.created"])
    receiver.respond(*[500] * len(RETRY_OFFSETS))  # every attempt of the first event, then 200
    first = new_document(inproc, "first")
    second = new_document(inproc, "second")
    settle(inproc)
    advance(inproc, 86400 - 1)
    assert len(receiver.received) == len(RETRY_OFFSETS) - 1
    advance(inproc, 1)
    failed, flowed = deliveries(inproc)
    assert failed["status"] == "failed"
    assert failed["next_attempt_at"] is None
    assert [a["at"] for a in failed["attempts"]] == [_ts(START + o) for o in RETRY_OFFSETS]
    assert flowed["status"] == "succeeded"
    assert [a["at"] for a in flowed["attempts"]] == [_ts(START + 86400)]
    bodies = [json.loads(r.body)["data"]["title"] for r in receiver.received]
    assert bodies == ["first"] * len(RETRY_OFFSETS) + ["second"]
    assert {first, second} == {json.loads(r.body)["data"]["id"] for r in receiver.received}


def test_ordering_holds_with_several_events_queued_behind_a_failing_one(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    register(client, receiver.url, ["document.created"])
    receiver.respond(500, 500)
    titles = ["one", "two", "three"]
    for title in titles:
        new_document(client, title)
    settle(client)
    head, *queued = deliveries(client)
    assert (head["status"], len(head["attempts"])) == ("pending", 1)
    assert [(d["status"], d["attempts"], d["next_attempt_at"]) for d in queued] == [
        ("pending", [], None),
        ("pending", [], None),
    ]
    advance(client, 60)
    assert len(receiver.received) == 2  # still the first event only
    advance(client, 120)
    got = [json.loads(r.body)["data"]["title"] for r in receiver.received]
    assert got == ["one", "one", "one", "two", "three"]
    assert [d["status"] for d in deliveries(client)] == ["succeeded"] * 3
    assert {a["at"] for d in deliveries(client)[1:] for a in d["attempts"]} == {_ts(START + 180)}


def test_a_failing_endpoint_does_not_hold_up_another(inproc: httpx.Client) -> None:
    with WebhookReceiver() as broken, WebhookReceiver() as healthy:
        broken.respond(then=500)
        register(inproc, broken.url, ["document.created"])
        register(inproc, healthy.url, ["document.created"])
        for title in ("one", "two"):
            new_document(inproc, title)
        settle(inproc)
        assert [json.loads(r.body)["data"]["title"] for r in healthy.received] == ["one", "two"]
        assert [json.loads(r.body)["data"]["title"] for r in broken.received] == ["one"]


def test_connection_refused_is_retried_like_a_failure(inproc: httpx.Client) -> None:
    port = closed_port()
    register(inproc, f"http://127.0.0.1:{port}/hooks", ["document.created"])
    new_document(inproc)
    settle(inproc)
    [refused] = deliveries(inproc)
    [attempt] = refused["attempts"]
    assert attempt["status_code"] is None
    assert attempt["error"].startswith("connection failed")
    assert refused["next_attempt_at"] == _ts(START + 60)
    release_port(port)
    with WebhookReceiver(port=port) as receiver:  # the receiver comes up
        advance(inproc, 60)
        assert len(receiver.received) == 1
    assert deliveries(inproc)[0]["status"] == "succeeded"


def test_a_timeout_is_retried_like_a_failure(quick: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        receiver.respond(HANG)  # then 200
        register(quick, receiver.url, ["document.created"])
        new_document(quick)
        settle(quick)
        [timed_out] = deliveries(quick)
        assert timed_out["attempts"][0]["error"] == "timeout: no answer within 2 s"
        assert timed_out["attempts"][0]["status_code"] is None
        assert timed_out["next_attempt_at"] == _ts(START + 60)
        advance(quick, 60)
        assert deliveries(quick)[0]["status"] == "succeeded"
        assert len(receiver.received) == 2


def test_a_hanging_receiver_does_not_slow_api_responses(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    """API calls complete while deliveries hang: the attempts are still in flight after them."""
    receiver.respond(then=HANG)
    for _ in range(3):
        register(inproc, receiver.url, ["document.created"])
    new_document(inproc)
    receiver.wait_for(3)  # three attempts hanging
    for i in range(20):
        assert inproc.get("/v1/documents?limit=5").status_code == 200
        assert inproc.post("/v1/vaults", json={"name": f"v{i}", "region": "us"}).status_code == 201
    assert inproc.get("/v1/webhook_endpoints").status_code == 200
    assert [d["in_flight"] for d in deliveries(inproc)] == [True] * 3


def test_deleting_an_endpoint_lets_the_attempt_in_flight_finish_and_cancels_the_rest(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    endpoint = register(client, receiver.url, ["document.created"])
    receiver.respond(HOLD)
    new_document(client, "in flight")
    receiver.wait_for(1)
    new_document(client, "queued")
    deleted = client.delete(f"/v1/webhook_endpoints/{endpoint['id']}")
    assert deleted.status_code == 200  # answered while the attempt is held
    flying, queued = deliveries(client)
    assert (flying["status"], flying["in_flight"]) == ("pending", True)
    assert (queued["status"], queued["attempts"]) == ("cancelled", [])
    receiver.release(200)
    settle(client)
    assert deliveries(client)[0]["status"] == "succeeded"
    new_document(client, "after")
    advance(client, 86400)
    assert [json.loads(r.body)["data"]["title"] for r in receiver.received] == ["in flight"]
    assert len(deliveries(client)) == 2


def test_an_attempt_in_flight_that_fails_after_deletion_is_not_retried(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    endpoint = register(inproc, receiver.url, ["document.created"])
    receiver.respond(HOLD)
    new_document(inproc)
    receiver.wait_for(1)
    inproc.delete(f"/v1/webhook_endpoints/{endpoint['id']}")
    receiver.release(500)
    settle(inproc)
    [cancelled] = deliveries(inproc)
    assert cancelled["status"] == "cancelled"
    assert [a["status_code"] for a in cancelled["attempts"]] == [500]
    assert cancelled["next_attempt_at"] is None
    advance(inproc, 86400)
    assert len(receiver.received) == 1


def test_deleting_an_endpoint_waiting_for_a_retry_stops_it(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    endpoint = register(inproc, receiver.url, ["document.created"])
    receiver.respond(500)
    new_document(inproc)
    settle(inproc)
    inproc.delete(f"/v1/webhook_endpoints/{endpoint['id']}")
    [cancelled] = deliveries(inproc)
    assert (cancelled["status"], cancelled["next_attempt_at"]) == ("cancelled", None)
    advance(inproc, 86400)
    assert len(receiver.received) == 1


def test_redeliver_sends_the_same_event_again(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    endpoint = register(client, receiver.url, ["document.created"])
    receiver.respond(then=500)
    new_document(client)
    settle(client)
    advance(client, 86400)
    [failed] = deliveries(client)
    assert failed["status"] == "failed"
    receiver.respond(then=200)  # the receiver is fixed: send the event again by hand
    response = client.post(f"/_mock/webhooks/deliveries/{failed['id']}/redeliver")
    assert response.status_code == 202
    copy = response.json()
    assert copy["id"] != failed["id"]
    assert (copy["event_id"], copy["redelivery_of"]) == (failed["event_id"], failed["id"])
    settle(client)
    _, done = deliveries(client)
    assert done["status"] == "succeeded"
    assert receiver.received[-1].body == receiver.received[0].body
    verify_both(receiver.received[-1], endpoint["signing_secret"], now=START + 86400)
    assert deliveries(client, event_id=failed["event_id"]) == deliveries(client)
    missing = client.post("/_mock/webhooks/deliveries/whd_nope/redeliver")
    assert_envelope(missing, 404, "not_found")
    client.delete(f"/v1/webhook_endpoints/{endpoint['id']}")
    gone = client.post(f"/_mock/webhooks/deliveries/{failed['id']}/redeliver")
    assert_envelope(gone, 409, "conflict")


def test_the_journal_filters(inproc: httpx.Client) -> None:
    with WebhookReceiver() as one, WebhookReceiver() as two:
        first = register(inproc, one.url, ["document.created"])
        second = register(inproc, two.url, ["document.created", "document.deleted"])
        one.respond(then=500)
        doc_id = new_document(inproc)
        inproc.delete(f"/v1/documents/{doc_id}")
        settle(inproc)
        everything = deliveries(inproc)
        assert len(everything) == 3
        assert [d["endpoint_id"] for d in deliveries(inproc, endpoint_id=first["id"])] == [
            first["id"]
        ]
        assert len(deliveries(inproc, endpoint_id=second["id"])) == 2
        created = everything[0]["event_id"]
        assert len(deliveries(inproc, event_id=created)) == 2
        assert len(deliveries(inproc, status="succeeded")) == 2
        assert len(deliveries(inproc, status="pending")) == 1
        assert deliveries(inproc, status="failed") == []
        bad = inproc.get("/_mock/webhooks/deliveries", params={"status": "lost"})
        assert assert_envelope(bad, 422, "validation_error")["param"] == "status"


def test_reset_clears_deliveries_queues_and_timers(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    register(inproc, receiver.url, ["document.created"])
    receiver.respond(500)
    new_document(inproc)
    settle(inproc)
    assert inproc.post("/_mock/reset").status_code == 200
    assert deliveries(inproc) == []
    assert inproc.get("/v1/webhook_endpoints").json()["data"] == []
    advance(inproc, 86400)
    assert len(receiver.received) == 1


def test_wait_validation(inproc: httpx.Client) -> None:
    for body in ({"timeout": "1"}, {"timeout": -1}, {"timeout": True}, {"timeout": 10_000}):
        error = assert_envelope(
            inproc.post("/_mock/webhooks/wait", json=body), 422, "validation_error"
        )
        assert error["param"] == "timeout"
    assert inproc.post("/_mock/webhooks/wait", json={"timeout": 1}).json() == {
        "idle": True,
        "in_flight": 0,
    }


def test_an_attempt_cut_short_by_its_loop_closing_is_made_again(hooks_app: Starlette) -> None:
    """An in-process client closing cancels the attempt running on its loop: it is not
    recorded, and the next run of due timers (any request) makes it again, or cancels the
    delivery if its endpoint is gone."""
    hooks_app.state.store.reset()
    with WebhookReceiver() as receiver:
        receiver.respond(HOLD)  # then 200
        with inprocess_client(hooks_app, headers=auth()) as first:
            kept = register(first, receiver.url, ["document.created"])
            new_document(first, "kept")
            receiver.wait_for(1)
        with inprocess_client(hooks_app, headers=auth()) as second:
            settle(second)
            [made_again] = deliveries(second)
            assert made_again["status"] == "succeeded"
            assert [a["status_code"] for a in made_again["attempts"]] == [200]
            assert len(receiver.received) == 2
            dropped = register(second, receiver.url, ["vault.created"])
            second.delete(f"/v1/webhook_endpoints/{kept['id']}")
        with inprocess_client(hooks_app, headers=auth()) as third:
            receiver.respond(HOLD)
            third.post("/v1/vaults", json={"name": "V", "region": "us"})
            receiver.wait_for(3)
            third.delete(f"/v1/webhook_endpoints/{dropped['id']}")
        with inprocess_client(hooks_app, headers=auth()) as fourth:
            settle(fourth)
            last = deliveries(fourth, endpoint_id=dropped["id"])
            assert [(d["status"], d["attempts"]) for d in last] == [("cancelled", [])]
            assert len(receiver.received) == 3
