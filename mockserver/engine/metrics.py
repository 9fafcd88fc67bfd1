"""The server's Prometheus metrics (`GET /_mock/metrics`): counted on the request path as plain
integers, turned into metric families only when Prometheus scrapes.

Counting a request is a few dictionary updates (no lock, no prometheus_client object on the
path: everything runs on the event loop); the gauges (pending webhook deliveries, journal
entries, idempotency records, accounts) are read off the sandbox at scrape time. Each app has a
registry of its own, never prometheus_client's global one, so two apps in one process count
apart. Label values are bounded: a method outside the standard ones is `other`, as is every
account after the first `ACCOUNTS_LABELLED` seen; a route is its template or `unmatched`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from mockserver.core.observed import Hit, Observed
from mockserver.engine.sandbox import SandboxState
from mockserver.webhooks.deliveries import Delivery
from mockserver.webhooks.watch import OUTCOMES, Watching, outcome

CONTENT_TYPE = CONTENT_TYPE_LATEST
STANDARD_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}
)
ACCOUNTS_LABELLED = 1_000  # distinct account label values; later accounts are `other`
UNMATCHED = "unmatched"  # the route of a request no route serves
NO_ACCOUNT = "none"  # the account of a request with no caller (and of the control plane)
NO_STATUS = "none"  # the status of a request a transport fault answered nothing
# Seconds: a mock answers in well under a millisecond, a scenario's delay in seconds.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_BOUNDS = [*(str(bound) for bound in BUCKETS), "+Inf"]

# Every metric family this module exports, by its name in the exposition (counters without
# their `_total`): the dashboard's test checks its queries against them.
EXPORTED = (
    "mockserver_requests",
    "mockserver_request_duration_seconds",
    "mockserver_scenario_hits",
    "mockserver_chaos_hits",
    "mockserver_faults",
    "mockserver_rate_limited",
    "mockserver_webhook_attempts",
    "mockserver_webhook_pending",
    "mockserver_journal_entries",
    "mockserver_idempotency_records",
    "mockserver_accounts",
)


class Metrics:
    """The counts of one app's server, and the registry that exports them."""

    def __init__(self, sandbox: SandboxState) -> None:
        self.sandbox = sandbox
        # (method, route, status or None, account): the status is a string only when scraped.
        self.requests: dict[tuple[str, str, int | None, str], int] = {}
        self.durations: dict[str, list[float]] = {}  # per route: a count per bucket, then sum
        self.scenario_hits: dict[Hit, int] = {}
        self.chaos_hits: dict[Hit, int] = {}
        self.faults: dict[str, int] = {}
        self.rate_limited = 0
        self.webhook_attempts = dict.fromkeys(OUTCOMES, 0)
        self.accounts: set[str] = set()  # the accounts with a label of their own
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_Collector(self))
        ProcessCollector(registry=self.registry)
        sandbox.webhooks.watches.append(self)

    def count(self, method: str, status: int | None, seconds: float, observed: Observed) -> None:
        """Count one answered client request."""
        if method not in STANDARD_METHODS:
            method = "other"
        route = observed.route or UNMATCHED
        account = observed.account
        if account is None:
            account = NO_ACCOUNT
        elif account not in self.accounts:
            if len(self.accounts) < ACCOUNTS_LABELLED:
                self.accounts.add(account)
            else:
                account = "other"
        key = (method, route, status, account)
        requests = self.requests
        requests[key] = requests.get(key, 0) + 1
        histogram = self.durations.get(route)
        if histogram is None:
            histogram = self.durations[route] = [0.0] * (len(BUCKETS) + 2)
        histogram[bisect_left(BUCKETS, seconds)] += 1
        histogram[-1] += seconds
        if observed.fault is not None:
            self.faults[observed.fault] = self.faults.get(observed.fault, 0) + 1
        if status == 429 and observed.rate_limited:
            self.rate_limited += 1

    def hit_scenario(self, hit: Hit) -> None:
        self.scenario_hits[hit] = self.scenario_hits.get(hit, 0) + 1

    def hit_chaos(self, hit: Hit) -> None:
        self.chaos_hits[hit] = self.chaos_hits.get(hit, 0) + 1

    # A webhook watch (`webhooks/watch.py`): counts each attempt's outcome.
    headers: list[tuple[str, str]] = []  # noqa: RUF012 (read only: nothing is added)

    def attempt(self, delivery: Delivery) -> Watching:
        return self

    def done(self, status: int | None, error: str | None) -> None:
        self.webhook_attempts[outcome(status, error)] += 1

    def exposition(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)


class _Collector:
    """Turns the counts and the sandbox's state into metric families at scrape time."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        metrics = self.metrics
        requests = CounterMetricFamily(
            "mockserver_requests",
            "Client requests answered, by method, route template, status and account.",
            labels=("method", "route", "status", "account"),
        )
        for (method, route, status, account), value in metrics.requests.items():
            shown = NO_STATUS if status is None else str(status)
            requests.add_metric((method, route, shown, account), value)
        yield requests
        durations = HistogramMetricFamily(
            "mockserver_request_duration_seconds",
            "Time from a request's arrival to its answer, by route template.",
            labels=("route",),
        )
        for route, counts in metrics.durations.items():
            cumulative, buckets = 0.0, []
            for bound, count in zip(_BOUNDS, counts[:-1], strict=True):
                cumulative += count
                buckets.append((bound, cumulative))
            durations.add_metric((route,), buckets, counts[-1])
        yield durations
        yield _hits(
            "mockserver_scenario_hits", "Requests a scenario rule answered.", metrics.scenario_hits
        )
        yield _hits(
            "mockserver_chaos_hits", "Requests a scenario's chaos rule hit.", metrics.chaos_hits
        )
        faults = CounterMetricFamily(
            "mockserver_faults", "Transport faults acted out, by kind.", labels=("kind",)
        )
        for kind, value in metrics.faults.items():
            faults.add_metric((kind,), value)
        yield faults
        yield CounterMetricFamily(
            "mockserver_rate_limited",
            "Requests refused with 429 by a rate limit (a scenario's burst included).",
            value=metrics.rate_limited,
        )
        attempts = CounterMetricFamily(
            "mockserver_webhook_attempts",
            "Webhook delivery attempts, by outcome.",
            labels=("outcome",),
        )
        for name, value in metrics.webhook_attempts.items():
            attempts.add_metric((name,), value)
        yield attempts
        yield from _gauges(metrics.sandbox)


def _hits(name: str, documentation: str, hits: dict[Hit, int]) -> CounterMetricFamily:
    family = CounterMetricFamily(name, documentation, labels=("scenario", "rule"))
    for labels, value in hits.items():
        family.add_metric(labels, value)
    return family


def _gauges(server: SandboxState) -> Iterator[Metric]:
    """What the sandbox holds now: the server's and its accounts'."""
    sandboxes = [server, *(tenant.sandbox for tenant in server.tenants or ())]
    pending = 0
    for sandbox in sandboxes:
        by_id = sandbox.webhooks.journal.saved()[0]
        pending += sum(1 for delivery in by_id.values() if delivery.status == "pending")
    yield GaugeMetricFamily(
        "mockserver_webhook_pending", "Webhook deliveries waiting to be delivered.", value=pending
    )
    yield GaugeMetricFamily(
        "mockserver_journal_entries", "Requests kept in the journal.", value=len(server.journal)
    )
    records = sum(len(sandbox.store.idempotency) for sandbox in sandboxes)
    yield GaugeMetricFamily(
        "mockserver_idempotency_records", "Idempotency records kept.", value=records
    )
    accounts = sum(len(sandbox.store.accounts) for sandbox in sandboxes)
    yield GaugeMetricFamily("mockserver_accounts", "Accounts, seeded and made.", value=accounts)
