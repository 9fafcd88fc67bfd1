"""What a rule matches and what it answers with: the parts a scenario's rules and its chaos
rules share (`model.py` holds the rest of a scenario, `chaos.py` the chaos rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mockserver.scenarios.matching import PathPattern

# The error type of an injected status when the rule names none (the API's error table).
ERROR_TYPES = {
    400: "bad_request",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found",
    409: "conflict",
    413: "bad_request",
    422: "validation_error",
    429: "rate_limit_error",
}


# The transport faults a rule's `respond` may name, and whether the request runs (and its
# effects stay) under each: `reset` and `stall` close the connection before the request runs;
# `drop_after_commit` runs it and sends nothing; `truncate` and `slow_body` send its answer
# (the real one, or the rule's `status`) broken or slowly.
TRANSPORT_FAULTS = {
    "reset": False,
    "stall": False,
    "drop_after_commit": True,
    "truncate": True,
    "slow_body": True,
}


@dataclass(slots=True)
class Match:
    methods: frozenset[str] | None = None
    path: PathPattern | None = None
    keys: frozenset[str] | None = None
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    query: dict[str, str] = field(default_factory=dict)
    body: Any = None
    has_body: bool = False
    nth: int | None = None  # fire from this match on (1-based); None: from the first
    times: int | None = None  # fire this many times; None: once with nth, else always


@dataclass(slots=True)
class ErrorSpec:
    type: str
    message: str
    param: str | None = None


@dataclass(slots=True)
class Respond:
    status: int | None = None  # None with a delay: delay, then let the real handler answer
    error: ErrorSpec | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    has_body: bool = False
    delay_ms: int = 0
    burst_seconds: int | None = None
    fault: str | None = None  # a transport fault (TRANSPORT_FAULTS) instead of a clean answer
    bytes_per_second: int = 0  # slow_body's rate
    stall_ms: int = 0  # how long a stall holds the connection before resetting it
