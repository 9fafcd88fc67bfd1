"""Sliding-window rate limits on the mock clock (docs/reference/api.md, Rate limits).

Each identity (an API key or OAuth token, or a client address for requests without a valid
credential) has a window: the times of its admitted requests in the last 60 s, oldest first,
in a deque. A request drops the entries that have left the window (each entry is dropped once,
so the cost is amortised O(1)) and is admitted while fewer than `burst` remain. A refused
request is not counted, so a window never holds more than `burst` entries: memory is O(burst)
per identity, also when nothing is refused (`enforce=False`, the `--no-rate-limit` mode, where
a request over the limit goes through uncounted and reports what a refused one would).

The verdict carries what the response headers say: `remaining` = burst minus the window's
entries after this request, `reset` = the Unix second (rounded up) at which the oldest counted
request leaves the window, and for a refusal `retry_after` = the whole seconds (rounded up)
until then, so `reset == now + retry_after` on a whole-second clock.

Memory stays bounded: a key's window that has emptied is the same as no window, so windows are
swept (without loss) whenever their number doubles; beyond `CREDENTIAL_CAPACITY` windows (OAuth
tokens come and go with traffic, and under a frozen clock no window ever empties) a sweep keeps
the half most recently used, so a dropped credential starts a fresh window. Client addresses
are an LRU of `ANONYMOUS_CAPACITY` windows. A window holds at most `burst` entries.

`RateLimiter.admit` counts one request of a caller (an API key's or OAuth token's plan) or of
an address without a valid credential (the sandbox plan), and gives the `X-RateLimit-*` headers
or the 429 that refuses it; a scenario's forced burst refuses without counting
(`forced_refusal`); `standing` gives an address's headers without counting anything.
"""

from __future__ import annotations

import math
from collections import OrderedDict, deque
from typing import final

from mockserver.core.errors import RateLimited
from mockserver.domain.auth import Principal

WINDOW = 60  # seconds
ANONYMOUS_CAPACITY = 4096  # client addresses remembered; the least recently seen is dropped
SWEEP_FLOOR = 1024  # credential windows are swept once there are more than this many
CREDENTIAL_CAPACITY = 4096  # credential windows kept at most; a sweep keeps the newest half
ANONYMOUS_PLAN = (120, 200)  # requests without a valid credential: the sandbox plan


@final
class Verdict:
    """The outcome of one request against its window: whether it was admitted, how many
    requests the window has left, when (Unix seconds) its oldest request leaves it, and the
    whole seconds to wait before a retry (0 when admitted)."""

    __slots__ = ("admitted", "remaining", "reset", "retry_after")

    def __init__(self, admitted: bool, remaining: int, reset: int, retry_after: int) -> None:
        self.admitted = admitted
        self.remaining = remaining
        self.reset = reset
        self.retry_after = retry_after

    def _fields(self) -> tuple[bool, int, int, int]:
        return (self.admitted, self.remaining, self.reset, self.retry_after)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Verdict(admitted={!r}, remaining={!r}, reset={!r}, retry_after={!r})".format(
            *self._fields()
        )


def refusal(limit: int, burst: int, verdict: Verdict) -> RateLimited:
    """The 429 of a request its window refuses (`limit`: the plan's sustained rate)."""
    error = RateLimited(
        f"Rate limit exceeded: at most {burst} requests in any 60 seconds "
        f"(sustained rate {limit}/min). Retry after {verdict.retry_after} s.",
        headers={
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": str(verdict.reset),
            "Retry-After": str(verdict.retry_after),
        },
    )
    # A refused request finds its window full: it counts `burst` requests.
    return error.because(
        "rate_limit", limit=limit, burst=burst, used=burst, retry_after=verdict.retry_after
    )


def forced_refusal(
    principal: Principal, reset_at: int, retry_after: int, rule: str, scenario: str
) -> RateLimited:
    """The 429 of a scenario's burst: the caller's window counts as full, and the request is
    not counted."""
    verdict = Verdict(False, 0, reset_at, retry_after)
    return refusal(principal.rate_limit, principal.burst, verdict).because(
        "scenario", rule=rule, scenario=scenario, retry_after=retry_after
    )


class RateLimiter:
    """The windows of every identity of one server."""

    __slots__ = ("_anonymous", "_sweep_above", "_windows", "enforce")

    def __init__(self, *, enforce: bool = True) -> None:
        self.enforce = enforce
        self._windows: dict[str, deque[float]] = {}
        self._anonymous: OrderedDict[str, deque[float]] = OrderedDict()
        self._sweep_above = SWEEP_FLOOR

    def admit(
        self, principal: Principal | None, client: str, now: float
    ) -> list[tuple[bytes, bytes]]:
        """Count a request of `principal` (None: of the address `client`, on the sandbox plan)
        and give its `X-RateLimit-*` headers, or raise the 429 of a full window."""
        if principal is None:
            limit, burst = ANONYMOUS_PLAN
            verdict = self.hit_anonymous(client, now)
        else:
            limit, burst = principal.rate_limit, principal.burst
            verdict = self.hit(principal.credential, burst, now)
        if not verdict.admitted:
            raise refusal(limit, burst, verdict)
        return _headers(limit, verdict.remaining, verdict.reset)

    def standing(self, client: str, now: float) -> list[tuple[bytes, bytes]]:
        """The `X-RateLimit-*` headers of the address `client`'s window as it stands, for a
        request that counts in no window (one with two `Authorization` headers): the requests
        it has left, and when its oldest leaves it (now + 60 when it holds none). Makes no
        window."""
        limit, burst = ANONYMOUS_PLAN
        window = self._anonymous.get(client, deque())
        _expire(window, now)
        oldest = window[0] if window else now
        return _headers(limit, burst - len(window), math.ceil(oldest + WINDOW))

    def hit(self, credential: str, burst: int, now: float) -> Verdict:
        """Count a request of an API key or OAuth token against its window."""
        window = self._windows.get(credential)
        if window is None:
            if len(self._windows) >= self._sweep_above:
                self._sweep(now)
            window = self._windows[credential] = deque()
        return self._count(window, burst, now)

    def hit_anonymous(self, address: str, now: float) -> Verdict:
        """Count a request without a valid credential against its client address's window."""
        window = self._anonymous.get(address)
        if window is None:
            window = self._anonymous[address] = deque()
            if len(self._anonymous) > ANONYMOUS_CAPACITY:
                self._anonymous.popitem(last=False)
        else:
            self._anonymous.move_to_end(address)
        return self._count(window, ANONYMOUS_PLAN[1], now)

    def clear(self) -> None:
        """Forget every window (a reset of the mock)."""
        self._windows.clear()
        self._anonymous.clear()
        self._sweep_above = SWEEP_FLOOR

    def __len__(self) -> int:
        return len(self._windows) + len(self._anonymous)

    def _count(self, window: deque[float], burst: int, now: float) -> Verdict:
        _expire(window, now)
        if len(window) < burst:
            window.append(now)
            return Verdict(True, burst - len(window), math.ceil(window[0] + WINDOW), 0)
        leaves = window[0] + WINDOW  # the oldest counted request leaves the window then
        retry_after = max(1, math.ceil(leaves - now))
        return Verdict(not self.enforce, 0, math.ceil(leaves), retry_after)

    def _sweep(self, now: float) -> None:
        """Drop the windows whose every entry has left (they mean the same as no window), and
        beyond half the capacity the least recently used ones. The next sweep comes when the
        number has doubled, and at the capacity at the latest."""
        horizon = now - WINDOW
        live = {k: w for k, w in self._windows.items() if w and w[-1] > horizon}
        keep = CREDENTIAL_CAPACITY // 2
        if len(live) > keep:  # by last use; ties (a frozen clock) keep the newest windows
            live = dict(sorted(live.items(), key=_last_use)[-keep:])
        self._windows = live
        self._sweep_above = max(SWEEP_FLOOR, min(2 * len(live), CREDENTIAL_CAPACITY))


def _expire(window: deque[float], now: float) -> None:
    """Drop the entries that have left `window` by `now` (each once: amortised O(1))."""
    horizon = now - WINDOW
    while window and window[0] <= horizon:
        window.popleft()


def _headers(limit: int, remaining: int, reset: int) -> list[tuple[bytes, bytes]]:
    return [
        (b"x-ratelimit-limit", str(limit).encode()),
        (b"x-ratelimit-remaining", str(remaining).encode()),
        (b"x-ratelimit-reset", str(reset).encode()),
    ]


def _last_use(item: tuple[str, deque[float]]) -> float:
    return item[1][-1]
