"""A loaded scenario as typed objects: what the loader builds and the engine runs.

Every part keeps `at`, its path in the file, so a problem found later (a setup action that
names a missing document, a timeline action that fails) is still reported at its line. Rules
carry their own counters: counting is per rule, so two rules never disturb each other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from mockserver.core.errors import ScenarioError
from mockserver.scenarios.chaos import Chaos
from mockserver.scenarios.matching import PathPattern

# The parts a rule shares with chaos rules are part of the model too, so named here as well.
from mockserver.scenarios.rule_parts import ERROR_TYPES as ERROR_TYPES
from mockserver.scenarios.rule_parts import TRANSPORT_FAULTS as TRANSPORT_FAULTS
from mockserver.scenarios.rule_parts import ErrorSpec as ErrorSpec
from mockserver.scenarios.rule_parts import Match as Match
from mockserver.scenarios.rule_parts import Respond as Respond
from mockserver.seeds.yaml_lines import PathT, line_of


@dataclass(slots=True)
class Action:
    """One setup or timeline action: `kind` is its only key in the file, `args` its fields."""

    kind: str
    args: dict[str, Any]
    at: PathT


@dataclass(slots=True)
class Rule:
    name: str
    match: Match
    respond: Respond
    at: PathT
    enabled: bool = True
    scenario: str = ""
    version: str = ""  # its scenario's version, once loaded
    seen: int = 0  # requests that matched
    fired: int = 0  # requests this rule answered
    burst_end: int | None = None  # a burst rule's end, once started

    def should_fire(self) -> bool:
        """Count one more matching request; True if this one is the rule's to answer."""
        self.seen += 1
        nth, limit = self.match.nth, self.match.times
        if self.seen < (nth or 1):
            return False
        if limit is None and nth is not None:
            limit = 1  # `nth: 3` alone means the third request only
        if limit is not None and self.fired >= limit:
            return False
        self.fired += 1
        return True


@dataclass(slots=True)
class WebhookFault:
    name: str
    kind: str  # fail | timeout | duplicate | delay
    at: PathT
    enabled: bool = True
    scenario: str = ""
    endpoint: str | None = None
    event: str | None = None  # None or "*": any event type
    first: int | None = None  # the first N attempts
    attempts: frozenset[int] | None = None  # exactly these attempt numbers
    status: int = 500  # what a `fail` answers
    delay_seconds: int = 0  # how long a `delay` holds the attempt back


@dataclass(slots=True)
class Deprecation:
    name: str
    path: PathPattern
    deprecation: int  # Unix seconds
    sunset: int
    at: PathT
    method: str | None = None
    link: str | None = None
    enabled: bool = True
    scenario: str = ""


@dataclass(slots=True)
class TimelineEntry:
    actions: list[Action]
    at: PathT
    after: int | None = None  # seconds after loading
    when: int | None = None  # absolute Unix seconds


@dataclass(slots=True)
class Step:
    kind: str  # request | advance | set_clock | wait_for_deliveries
    data: dict[str, Any]
    at: PathT
    name: str | None = None


DEFAULT_KEY = "sk_test_mock_full"  # the key a scenario acts with when it names none


@dataclass(slots=True)
class ClockSpec:
    freeze: bool = False
    set: int | None = None
    advance: int = 0


@dataclass(slots=True)
class Scenario:
    name: str
    source: str
    text: str
    description: str = ""
    key: str = DEFAULT_KEY
    clock: ClockSpec = field(default_factory=ClockSpec)
    setup: list[Action] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    webhooks: list[WebhookFault] = field(default_factory=list)
    deprecations: list[Deprecation] = field(default_factory=list)
    timeline: list[TimelineEntry] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    chaos: Chaos | None = None
    # Only in a scenario read past its problems (`read_scenario`, for `mockserver validate`):
    # what its skipped parts would have given, which the checks against a seed take as unknown
    # rather than missing: the ids their actions add, and the default key if it was refused.
    skipped_ids: set[str] = field(default_factory=set)
    key_refused: bool = False

    @property
    def version(self) -> str:
        """The first 12 hex digits of the sha256 of the file's text (UTF-8): which save of
        the file this is."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]

    def line_of(self, path: PathT) -> int:
        return line_of(self.text, path)

    def error(self, path: PathT, message: str) -> ScenarioError:
        """A ScenarioError at the line of `path`, its message prefixed with the path (none
        for the top level itself)."""
        where = render_path(path)
        text = f"{where}: {message}" if where else message
        return ScenarioError(self.source, self.line_of(path), text)


def render_path(path: PathT) -> str:
    """`("rules", 0, "match")` -> `rules[0].match`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else part
    return out
