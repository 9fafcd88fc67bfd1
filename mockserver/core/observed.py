"""What the metrics and traces learn of the one client request being answered.

The metrics middleware (`web/middleware/observability.py`), outside a durable sandbox's log,
opens an `Observed` for each client request and makes it current (a context variable) while the
request runs; the steps below note what they decide on it: the route it matched, its account,
the scenario or chaos rule that hit it. The sandbox's own requests open none: in a durable
log's replay `current()` is None, so nothing is counted; a trigger's own requests run inside
the client request that made them, so their rules count as that request's hits.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

# (scenario, rule) of a hit; a chaos hit's rule is its place in the scenario's chaos block.
Hit = tuple[str, str]


class Counts(Protocol):
    """Where a request's hits are counted (the metrics)."""

    def hit_scenario(self, hit: Hit) -> None: ...

    def hit_chaos(self, hit: Hit) -> None: ...


class NotCounted:
    """Hits with metrics off (tracing on)."""

    def hit_scenario(self, hit: Hit) -> None:
        pass

    def hit_chaos(self, hit: Hit) -> None:
        pass


@dataclass(slots=True)
class Observed:
    """One client request as the metrics and traces see it."""

    counts: Counts  # where its hits are counted
    route: str | None = None  # the route's template; None: no route matched
    account: str | None = None
    request_id: str | None = None
    rule: str | None = None  # the scenario rule that answered
    fault: str | None = None  # the transport fault that broke its connection
    rate_limited: bool = False  # refused by a rate limit (not a scenario's injected 429)
    trace_id: str | None = None  # its server span's, when traced (hex)
    span_id: str | None = None


# The client request being answered: set by the metrics middleware while the request runs.
CURRENT: ContextVar[Observed | None] = ContextVar("mockserver_observed", default=None)


def current() -> Observed | None:
    """The client request being answered (None in a replay, a timer, or with metrics off)."""
    return CURRENT.get()


def scenario_hit(scenario: str, rule: str) -> None:
    """A scenario rule answered the current request."""
    observed = CURRENT.get()
    if observed is not None:
        observed.counts.hit_scenario((scenario, rule))


def chaos_hit(scenario: str, rule: str) -> None:
    """A scenario's chaos rule hit the current request."""
    observed = CURRENT.get()
    if observed is not None:
        observed.counts.hit_chaos((scenario, rule))
