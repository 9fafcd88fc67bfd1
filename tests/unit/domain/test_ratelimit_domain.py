"""The sliding window itself, without HTTP: admission, headers' figures, memory bounds."""

from __future__ import annotations

import pytest

from mockserver.core.errors import RateLimited
from mockserver.domain import ratelimit
from mockserver.domain.auth import Principal
from mockserver.domain.ratelimit import ANONYMOUS_PLAN, WINDOW, RateLimiter, Verdict

T0 = 1_768_467_600.0  # 2026-01-15T09:00:00Z


def test_admits_exactly_burst_then_refuses_without_counting() -> None:
    limiter = RateLimiter()
    verdicts = [limiter.hit("sk_a", 5, T0) for _ in range(5)]
    assert [v.remaining for v in verdicts] == [4, 3, 2, 1, 0]
    assert all(v.admitted and v.reset == T0 + WINDOW for v in verdicts)
    refused = limiter.hit("sk_a", 5, T0 + 10)
    assert refused == Verdict(False, 0, int(T0 + WINDOW), 50)
    # refusals are not counted: at T0 + 60 all five leave together
    assert limiter.hit("sk_a", 5, T0 + 59).admitted is False
    assert limiter.hit("sk_a", 5, T0 + 60) == Verdict(True, 4, int(T0 + 120), 0)


def test_the_window_slides_one_request_at_a_time() -> None:
    limiter = RateLimiter()
    for second in range(4):
        limiter.hit("sk_a", 4, T0 + second * 10)  # at 0, 10, 20, 30
    blocked = limiter.hit("sk_a", 4, T0 + 65)
    assert (blocked.admitted, blocked.retry_after, blocked.reset) == (True, 0, T0 + 70)
    refused = limiter.hit("sk_a", 4, T0 + 66)
    assert (refused.admitted, refused.retry_after, refused.reset) == (False, 4, T0 + 70)
    assert refused.reset == T0 + 66 + refused.retry_after


def test_fractional_clock_rounds_reset_and_retry_after_up() -> None:
    limiter = RateLimiter()
    first = limiter.hit("sk_a", 1, T0 + 0.25)
    assert first.reset == T0 + 61  # 60.25 s rounded up to a whole second
    refused = limiter.hit("sk_a", 1, T0 + 30.5)
    assert (refused.retry_after, refused.reset) == (30, T0 + 61)  # 29.75 s rounded up
    assert limiter.hit("sk_a", 1, T0 + 30.5 + refused.retry_after).admitted


def test_identities_have_separate_windows() -> None:
    limiter = RateLimiter()
    assert limiter.hit("sk_a", 1, T0).admitted
    assert not limiter.hit("sk_a", 1, T0).admitted
    assert limiter.hit("sk_b", 1, T0).admitted
    assert limiter.hit_anonymous("sk_a", T0).admitted  # addresses are another namespace


def test_not_enforcing_admits_everything_and_reports_the_same() -> None:
    enforcing, lenient = RateLimiter(), RateLimiter(enforce=False)
    for _ in range(3):
        enforcing.hit("sk_a", 3, T0)
        lenient.hit("sk_a", 3, T0)
    refused = enforcing.hit("sk_a", 3, T0 + 1)
    over = lenient.hit("sk_a", 3, T0 + 1)
    assert not refused.admitted
    assert over.admitted
    assert (over.remaining, over.reset, over.retry_after) == (
        refused.remaining,
        refused.reset,
        refused.retry_after,
    )
    assert len(lenient._windows["sk_a"]) == 3  # over-limit requests are not kept


def test_anonymous_plan_is_the_sandbox_plan() -> None:
    limiter = RateLimiter()
    verdicts = [limiter.hit_anonymous("10.0.0.1", T0) for _ in range(201)]
    assert ratelimit.ANONYMOUS_PLAN == (120, 200)
    assert sum(v.admitted for v in verdicts) == 200


def test_anonymous_windows_are_a_bounded_lru(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratelimit, "ANONYMOUS_CAPACITY", 3)
    limiter = RateLimiter()
    for address in ("a", "b", "c"):
        limiter.hit_anonymous(address, T0)
    limiter.hit_anonymous("a", T0)  # a is now the most recently seen
    limiter.hit_anonymous("d", T0)  # evicts b
    assert list(limiter._anonymous) == ["c", "a", "d"]
    assert limiter.hit_anonymous("a", T0).remaining == 197  # a kept its two requests


def test_emptied_credential_windows_are_swept_without_loss(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ratelimit, "SWEEP_FLOOR", 4)
    limiter = RateLimiter()
    limiter._sweep_above = 4
    for name in ("old1", "old2", "old3"):
        limiter.hit(name, 10, T0)
    limiter.hit("busy", 10, T0 + 30)
    limiter.hit("new", 10, T0 + 61)  # sweeps: the old windows have emptied
    assert set(limiter._windows) == {"busy", "new"}
    assert limiter.hit("busy", 10, T0 + 61).remaining == 8


def test_clear_forgets_every_window() -> None:
    limiter = RateLimiter()
    limiter.hit("sk_a", 1, T0)
    limiter.hit_anonymous("a", T0)
    limiter.clear()
    assert len(limiter) == 0
    assert limiter.hit("sk_a", 1, T0).admitted


def test_credential_windows_are_capped_keeping_the_most_recently_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ratelimit, "SWEEP_FLOOR", 2)
    monkeypatch.setattr(ratelimit, "CREDENTIAL_CAPACITY", 8)
    limiter = RateLimiter()
    limiter._sweep_above = 2
    limiter.hit("kept", 10, T0)
    for n in range(100):  # a frozen clock: no window ever empties
        limiter.hit(f"tok{n}", 10, T0 + 1)
        limiter.hit("kept", 10, T0 + 2)  # the most recently used survives every sweep
        assert len(limiter._windows) <= 8
    assert "tok99" in limiter._windows
    assert "tok0" not in limiter._windows
    assert not limiter.hit("kept", 10, T0 + 2).admitted  # its full window, not a fresh one


def test_admit_counts_a_caller_and_refuses_past_its_burst() -> None:
    limiter = RateLimiter()
    caller = Principal("acct", "test", frozenset(), "user", "sk_x", 100, 3)
    headers = [limiter.admit(caller, "127.0.0.1", 1000.0) for _ in range(3)]
    assert headers[0] == [
        (b"x-ratelimit-limit", b"100"),
        (b"x-ratelimit-remaining", b"2"),
        (b"x-ratelimit-reset", b"1060"),
    ]
    with pytest.raises(RateLimited) as refused:
        limiter.admit(caller, "127.0.0.1", 1000.0)
    assert refused.value.headers["X-RateLimit-Remaining"] == "0"
    assert refused.value.headers["Retry-After"] == "60"


def test_admit_limits_a_request_without_a_caller_by_its_address() -> None:
    limiter = RateLimiter()
    headers = limiter.admit(None, "10.0.0.1", 1000.0)
    assert headers[0] == (b"x-ratelimit-limit", str(ANONYMOUS_PLAN[0]).encode())
