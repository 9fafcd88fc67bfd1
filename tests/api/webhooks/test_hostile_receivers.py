"""Hostile receivers: each costs an attempt a bounded time and a bounded number of bytes, ends
as a failed attempt retried on the schedule (or a success, for a 2xx whose body is never read),
and never holds up the API.

Receivers that must be cut by the attempt's deadline meet a short one (`DEADLINE`); the others
meet a long one (`PATIENT`), so that what ends their attempts is what they do, never a slow
machine running into the deadline. No test puts an upper bound on wall time: each waits for
its outcome.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from mockserver.webhooks.sender import ANSWER_HEAD_MAX
from tests.support.hostile import DRIP_ANSWER, KINDS, HostileReceiver
from tests.support.keys import auth
from tests.support.webhooks import advance, deliveries, new_document, register, settle

DEADLINE = 0.5  # seconds: the per-attempt deadline for receivers that must be cut by it
# Seconds: the deadline for receivers whose attempts end for another reason (an answer, a reset,
# a byte cap), and for attempts that must still be in flight while a test does its work.
PATIENT = 30.0
MIB = 1024 * 1024


def app_client(deadline: float) -> Iterator[httpx.Client]:
    app = create_app(Settings(clock_mode="frozen", webhook_timeout=deadline))
    with inprocess_client(app, headers=auth()) as client:
        yield client
        settle(client)


@pytest.fixture
def strict_deadline() -> Iterator[httpx.Client]:
    yield from app_client(DEADLINE)


@pytest.fixture
def patient() -> Iterator[httpx.Client]:
    yield from app_client(PATIENT)


def one_attempt(client: httpx.Client, receiver: HostileReceiver) -> dict[str, Any]:
    """Register `receiver`, write one event, and return the delivery once its attempt ended."""
    register(client, receiver.url, ["document.created"])
    new_document(client)
    settle(client)
    [delivery] = deliveries(client)
    return delivery


def test_a_drip_is_cut_at_the_attempt_s_deadline(strict_deadline: httpx.Client) -> None:
    """Each byte comes well within the deadline, so only a deadline for the whole attempt (not
    one per read) ends it."""
    with HostileReceiver("drip", interval=0.05) as receiver:
        delivery = one_attempt(strict_deadline, receiver)
    [attempt] = delivery["attempts"]
    assert attempt["status_code"] is None
    assert attempt["error"] == f"timeout: no answer within {DEADLINE:g} s"
    assert receiver.sent < len(DRIP_ANSWER)  # cut before the answer was all sent
    assert delivery["status"] == "pending"
    assert delivery["next_attempt_at"] is not None


def test_a_hang_is_cut_at_the_attempt_s_deadline(strict_deadline: httpx.Client) -> None:
    with HostileReceiver("hang") as receiver:
        delivery = one_attempt(strict_deadline, receiver)
    [attempt] = delivery["attempts"]
    assert attempt["error"] == f"timeout: no answer within {DEADLINE:g} s"
    assert attempt["duration_ms"] >= DEADLINE * 1000 * 0.9  # a lower bound the deadline sets


def test_a_gigabyte_answer_is_not_read(patient: httpx.Client) -> None:
    """The status decides: the 1 GiB body is left unread and the connection closed, so the
    receiver gets rid of no more than the sockets' buffers hold."""
    with HostileReceiver("gigabyte") as receiver:
        delivery = one_attempt(patient, receiver)
        receiver.wait_ended(1)  # the receiver noticed the close
        sent = receiver.sent
    [attempt] = delivery["attempts"]
    assert (attempt["status_code"], attempt["error"]) == (200, None)
    assert delivery["status"] == "succeeded"
    assert sent < 8 * MIB, f"{sent / MIB:.0f} MiB of the body were taken"


def test_a_redirect_is_a_failed_attempt_and_is_not_followed(patient: httpx.Client) -> None:
    with HostileReceiver("redirect") as receiver:
        delivery = one_attempt(patient, receiver)
        assert receiver.followed == 0
        assert delivery["attempts"][0]["status_code"] == 307
        assert delivery["attempts"][0]["error"] == "answered 307, not 2xx"
        assert delivery["next_attempt_at"] == "2026-01-15T09:01:00Z"
        advance(patient, 60)  # the retry is made on the schedule, and fails the same way
        [again] = deliveries(patient)
        assert [a["status_code"] for a in again["attempts"]] == [307, 307]
        assert receiver.followed == 0


def test_a_reset_is_a_failed_attempt_retried_on_the_schedule(patient: httpx.Client) -> None:
    with HostileReceiver("reset") as receiver:
        delivery = one_attempt(patient, receiver)
        [attempt] = delivery["attempts"]
        assert attempt["status_code"] is None
        assert attempt["error"] is not None
        assert not attempt["error"].startswith("timeout")  # ended by the reset, not the deadline
        assert delivery["next_attempt_at"] == "2026-01-15T09:01:00Z"
        advance(patient, 60)
        assert receiver.requests == 2
        assert len(deliveries(patient)[0]["attempts"]) == 2


def test_a_head_that_never_ends_is_cut_at_the_byte_cap(patient: httpx.Client) -> None:
    """httpcore's h11 limit is the documented cap (a newer httpcore could move it)."""
    from httpcore._async.http11 import AsyncHTTP11Connection

    assert AsyncHTTP11Connection.MAX_INCOMPLETE_EVENT_SIZE == ANSWER_HEAD_MAX
    with HostileReceiver("long_head") as receiver:
        delivery = one_attempt(patient, receiver)
        receiver.wait_ended(1)  # the receiver noticed the close
        sent = receiver.sent
    [attempt] = delivery["attempts"]
    assert attempt["status_code"] is None
    assert attempt["error"].startswith("RemoteProtocolError")
    assert len(attempt["error"]) <= 300
    assert ANSWER_HEAD_MAX < sent < 32 * MIB


def test_a_full_queue_drops_its_oldest_waiting_deliveries() -> None:
    """A receiver that never answers holds its queue's head; the queue keeps its size by
    dropping the oldest deliveries behind it, so memory stays bounded and the newest events
    are the ones kept."""
    app = create_app(Settings(clock_mode="frozen", webhook_timeout=PATIENT, webhook_queue_size=3))
    with HostileReceiver("hang") as receiver, inprocess_client(app, headers=auth()) as client:
        register(client, receiver.url, ["document.created"])
        ids = [new_document(client, f"doc {n}") for n in range(6)]
        receiver.wait_for(1)
        journal = deliveries(client)
        assert journal[0]["in_flight"]  # the head of the queue is still hanging
        statuses = [d["status"] for d in journal]
        assert statuses == ["pending", "dropped", "dropped", "dropped", "pending", "pending"]
        assert [d["attempts"] for d in journal[1:4]] == [[], [], []]
        dropped = deliveries(client, status="dropped")
        assert [d["id"] for d in dropped] == [d["id"] for d in journal[1:4]]
        assert len(ids) == len(journal)
        client.post("/_mock/reset")  # ends the hanging attempt


def test_no_hostile_receiver_holds_up_the_api() -> None:
    """Every kind at once, each with an attempt under way: API calls are answered meanwhile,
    that is, while the attempt to the receiver that never answers is still in flight."""
    app = create_app(Settings(clock_mode="frozen", webhook_timeout=PATIENT, rate_limit=False))
    receivers = [HostileReceiver(kind, interval=0.05) for kind in KINDS]
    hang = receivers[KINDS.index("hang")]

    def hanging() -> dict[str, Any]:
        [delivery] = [d for d in deliveries(client) if d["url"] == hang.url]
        return delivery

    with inprocess_client(app, headers=auth()) as client:
        for receiver in receivers:
            receiver.__enter__()
            register(client, receiver.url, ["document.created"])
        try:
            new_document(client)
            for receiver in receivers:
                receiver.wait_for(1)
            assert hanging()["in_flight"]
            for i in range(100):
                assert client.get("/v1/documents?limit=5").status_code == 200
                made = client.post("/v1/vaults", json={"name": f"v{i}", "region": "us"})
                assert made.status_code == 201
            still = hanging()  # every answer above came before its attempt ended
            assert (still["in_flight"], still["attempts"]) == (True, [])
        finally:
            client.post("/_mock/reset")
            for receiver in receivers:
                receiver.stop()
