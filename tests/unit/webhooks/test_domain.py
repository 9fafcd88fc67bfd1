"""The pure webhook domain: schedule, signature, queue transitions, journal bound, URL rules."""

from __future__ import annotations

import hashlib
import hmac
import itertools

import pytest
import stripe

from mockserver.core.errors import ValidationError
from mockserver.webhooks.deliveries import (
    RETRY_CAP,
    RETRY_OFFSETS,
    RETRY_WINDOW,
    Attempt,
    Delivery,
    EndpointQueue,
    Journal,
    clip_error,
    retry_offsets,
)
from mockserver.webhooks.endpoints import check_events, check_url, envelope, signature_header


def test_the_retry_schedule() -> None:
    assert RETRY_OFFSETS[:8] == (0, 60, 180, 420, 900, 1860, 3780, 7380)
    waits = [b - a for a, b in itertools.pairwise(RETRY_OFFSETS)]
    assert waits[:6] == [60, 120, 240, 480, 960, 1920]  # doubling from about a minute
    assert max(waits) == RETRY_CAP  # capped at an hour
    assert all(w > 0 for w in waits)
    assert RETRY_OFFSETS[-1] == RETRY_WINDOW == 86400  # the last try is right at 24 h
    assert len(RETRY_OFFSETS) == 30
    assert retry_offsets(first=10, cap=40, window=100) == (0, 10, 30, 70, 100)
    assert retry_offsets(first=50, cap=50, window=100) == (0, 50, 100)


def test_the_signature_is_stripes_scheme() -> None:
    body = envelope("evt_1", "signature.completed", 1768467600, {"document_id": "doc_1"})
    assert body == (
        b'{"id":"evt_1","type":"signature.completed","created_at":"2026-01-15T09:00:00Z",'
        b'"data":{"document_id":"doc_1"}}'
    )
    secret = "whsec_abc"
    header = signature_header(secret, 1768467600, body)
    expected = hmac.new(b"whsec_abc", b"1768467600." + body, hashlib.sha256).hexdigest()
    assert header == f"t=1768467600,v1={expected}"
    assert header == stripe.WebhookSignature.generate_signature_header(
        body.decode(), secret, timestamp=1768467600
    )


def delivery(name: str) -> Delivery:
    return Delivery(name, "acct", "sandbox", "whk_1", "http://x", f"evt_{name}", "t", b"{}", 0)


def failure(at: int) -> Attempt:
    return Attempt(at, 500, "answered 500, not 2xx", 1)


def test_only_the_head_is_attempted_and_the_next_flows_after_success() -> None:
    queue = EndpointQueue()
    first, second = delivery("a"), delivery("b")
    assert queue.push(first) is True
    assert queue.push(second) is False
    queue.begin(first, 100)
    assert queue.finish(first, failure(100), alive=True) is None
    assert first.next_attempt_at == 160
    queue.begin(first, 160)
    assert queue.finish(first, Attempt(160, 204, None, 1), alive=True) is second
    assert first.status == "succeeded"
    assert list(queue) == [second]


def test_a_delivery_fails_after_the_last_retry_and_the_next_flows() -> None:
    queue = EndpointQueue()
    first, second = delivery("a"), delivery("b")
    queue.push(first)
    queue.push(second)
    following = None
    for offset in RETRY_OFFSETS:
        queue.begin(first, 1000 + offset)
        following = queue.finish(first, failure(1000 + offset), alive=True)
    assert first.status == "failed"
    assert first.next_attempt_at is None
    assert following is second


def test_a_late_attempt_never_schedules_a_retry_in_the_past() -> None:
    queue = EndpointQueue()
    first = delivery("a")
    queue.push(first)
    queue.begin(first, 0)
    queue.finish(first, failure(500), alive=True)  # the receiver took 500 s (real clock)
    assert first.next_attempt_at == 500


def test_cancel_keeps_the_attempt_in_flight() -> None:
    queue = EndpointQueue()
    flying, waiting = delivery("a"), delivery("b")
    queue.push(flying)
    queue.push(waiting)
    queue.begin(flying, 0)
    assert queue.cancel() == [waiting]
    assert waiting.status == "cancelled"
    assert list(queue) == [flying]
    assert queue.finish(flying, failure(0), alive=False) is None
    assert flying.status == "cancelled"
    assert list(queue) == []


def test_the_journal_keeps_pending_deliveries_and_the_newest_finished_ones() -> None:
    journal = Journal(size=3)
    stuck = delivery("stuck")
    journal.add(stuck)
    for name in "bcde":
        done = delivery(name)
        done.status = "succeeded"
        journal.add(done)
    assert [d.id for d in journal.select()] == ["stuck", "d", "e"]


def test_a_full_queue_drops_the_oldest_delivery_waiting_behind_the_head() -> None:
    queue = EndpointQueue(size=3)
    head, *rest = (delivery(name) for name in "abcdef")
    assert queue.push(head) is True
    queue.begin(head, 0)  # in flight: never dropped
    for waiting in rest:
        assert queue.push(waiting) is False
    assert [d.id for d in queue] == ["a", "e", "f"]
    assert [d.status for d in rest] == ["dropped", "dropped", "dropped", "pending", "pending"]
    assert all(d.next_attempt_at is None for d in rest[:3])
    assert queue.finish(head, Attempt(0, 200, None, 1), alive=True) is rest[3]  # "e" goes next


def test_an_attempt_s_error_is_clipped() -> None:
    assert clip_error(None) is None
    assert clip_error("answered 500, not 2xx") == "answered 500, not 2xx"
    clipped = clip_error("x" * 10_000)
    assert clipped is not None
    assert len(clipped) == 300
    assert clipped.endswith("...")


@pytest.mark.parametrize(
    ("url", "strict", "ok"),
    [
        ("https://example.com/hook", False, True),
        ("https://example.com/hook", True, True),
        ("HTTPS://EXAMPLE.COM/hook", False, True),
        ("https://user:pw@example.com/hook", False, True),
        ("http://127.0.0.1:8000/x", False, True),
        ("http://127.0.0.1:8000/x", True, False),
        ("http://[::1]/x", False, True),
        ("http://127.0.0.2/x", False, False),
        ("http://localhost.example.com/x", False, False),
        ("http://example.com/x", False, False),
        ("ws://127.0.0.1/x", False, False),
        ("https://", False, False),
        ("https://exa mple.com/", False, False),
        ("https://example.com/\x00", False, False),
        ("https://[::1/x", False, False),
    ],
)
def test_url_rules(url: str, strict: bool, ok: bool) -> None:
    if ok:
        assert check_url(url, strict=strict) == url
    else:
        with pytest.raises(ValidationError) as caught:
            check_url(url, strict=strict)
        assert caught.value.param == "url"


def test_event_rules() -> None:
    assert check_events(["*"]) == ("*",)
    assert check_events(["document.locked", "document.locked"]) == ("document.locked",)
    with pytest.raises(ValidationError) as caught:
        check_events(["document.locked", None])
    assert caught.value.param == "events[1]"
