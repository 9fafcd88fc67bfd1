"""A scenario's `chaos:` block: rules that answer a share of matching requests, a latency
distribution, and a share of webhook delivery attempts that fail or are slow.

Every decision is a pure draw: sha256 of the chaos seed, the account, what is drawing (a rule,
the latency, a webhook rule) and the ordinal of the request (or attempt) among that account's
ones matching it. So the same seed and the same requests give the same hits, whatever else the
server does, and one account's traffic never moves another's hits. The counters are per account
and live here, on the loaded scenario, so a snapshot keeps them with it.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from statistics import NormalDist

from mockserver.scenarios.rule_parts import Match, Respond
from mockserver.seeds.yaml_lines import PathT

MAX_LATENCY_MS = 30000.0  # no draw waits longer
DISTRIBUTIONS = ("fixed", "uniform", "lognormal")
_Z99 = NormalDist().inv_cdf(0.99)  # the 99th percentile of the standard normal
_EDGE = 2.0**-64  # keeps inv_cdf away from 0 and 1


def draw(seed: int, account: str | None, label: str, ordinal: int) -> float:
    """The seeded draw in [0, 1) of the `ordinal`th (1-based) request of `account` matching
    the thing called `label`: the first 8 bytes of a sha256, as a fraction of 2**64."""
    key = f"{seed}\x00{account or ''}\x00{label}\x00{ordinal}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2.0**64


@dataclass(slots=True)
class Counted:
    """Something that draws per account: how many requests (or attempts) of each account it
    matched, and how many of them it hit. Accounts are keys; no account is ''."""

    seen: dict[str, int] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)

    def next_ordinal(self, account: str | None) -> int:
        """Count one more matching request of `account`; its ordinal (1-based)."""
        key = account or ""
        ordinal = self.seen.get(key, 0) + 1
        self.seen[key] = ordinal
        return ordinal

    def hit_next(
        self, seed: int, account: str | None, label: str, probability: float, free: bool
    ) -> float | None:
        """Count one more matching request of `account`; when `free` (nothing answered it
        yet), draw for it and, if the draw is under `probability`, count a hit and give it."""
        ordinal = self.next_ordinal(account)
        if not free:
            return None
        value = draw(seed, account, label, ordinal)
        if value >= probability:
            return None
        key = account or ""
        self.hits[key] = self.hits.get(key, 0) + 1
        return value


@dataclass(slots=True)
class ChaosRule(Counted):
    """Answers a matching request with `respond` when its draw is under `probability`.
    `label` is its name, else its index in `chaos.rules`."""

    label: str = ""
    match: Match = field(default_factory=Match)
    probability: float = 0.0
    respond: Respond = field(default_factory=Respond)
    at: PathT = ()
    named: bool = False  # `label` is a name from the file, not an index


@dataclass(slots=True)
class Latency(Counted):
    """Delays matching requests by a draw from a distribution (milliseconds)."""

    match: Match = field(default_factory=Match)
    distribution: str = "fixed"
    median_ms: float = 0.0
    p99_ms: float = 0.0
    at: PathT = ()

    def quantile(self, u: float) -> float:
        """The distribution's value at the draw `u` in [0, 1), in milliseconds: fixed is the
        median; lognormal has this median and p99; uniform is flat over the range with this
        median and p99 (clamped at 0). Never more than MAX_LATENCY_MS."""
        median, p99 = self.median_ms, self.p99_ms
        if self.distribution == "lognormal" and median > 0 and p99 > median:
            sigma = math.log(p99 / median) / _Z99
            z = NormalDist().inv_cdf(min(max(u, _EDGE), 1.0 - _EDGE))
            value = median * math.exp(sigma * z)
        elif self.distribution == "uniform":
            width = (p99 - median) / 0.49  # median at 0.5 of the range, p99 at 0.99
            value = max(0.0, median - width / 2 + width * u)
        else:
            value = median
        return min(value, MAX_LATENCY_MS)


@dataclass(slots=True)
class WebhookChaos(Counted):
    """Makes a share of the delivery attempts it matches fail, time out or wait (mock time)."""

    label: str = ""
    kind: str = "fail"  # fail | timeout | delay
    probability: float = 0.0
    endpoint: str | None = None
    event: str | None = None  # None: any event type
    status: int = 500  # what a `fail` answers
    delay_seconds: int = 0  # how long a `delay` holds the attempt back
    at: PathT = ()
    named: bool = False


@dataclass(slots=True)
class Chaos:
    """A scenario's chaos block."""

    seed: int
    rules: list[ChaosRule] = field(default_factory=list)
    latency: Latency | None = None
    webhooks: list[WebhookChaos] = field(default_factory=list)


# What each part draws under, so that a rule, the latency and a webhook rule never share a
# sequence of draws (a name cannot hold '/').
def rule_key(rule: ChaosRule) -> str:
    return f"rules/{rule.label}"


LATENCY_KEY = "latency"


def webhook_key(rule: WebhookChaos) -> str:
    return f"webhooks/{rule.label}"


def describe(chaos: Chaos) -> dict[str, object]:
    """What `GET /_mock/scenarios` shows of a chaos block: counts summed over accounts."""
    latency = chaos.latency
    return {
        "seed": chaos.seed,
        "rules": [_counts(rule.label, rule.probability, rule) for rule in chaos.rules],
        "latency": None
        if latency is None
        else {
            "distribution": latency.distribution,
            "median_ms": latency.median_ms,
            "p99_ms": latency.p99_ms,
            "matched": sum(latency.seen.values()),
        },
        "webhooks": [
            {**_counts(rule.label, rule.probability, rule), "fault": rule.kind}
            for rule in chaos.webhooks
        ],
    }


def _counts(label: str, probability: float, counted: Counted) -> dict[str, object]:
    return {
        "name": label,
        "probability": probability,
        "matched": sum(counted.seen.values()),
        "hit": sum(counted.hits.values()),
    }
