"""The loaded scenarios of one server and the decisions they make.

The scenario middleware asks these questions of an API request: is this credential in a forced
429 burst (`forced_rate_limit`, asked only while `bursts` holds a rule), does a rule answer
this request (`decide`), failing that does a chaos rule hit it (`chaos_decide`), how long does
chaos delay it (`chaos_latency`), and is the route deprecated (`deprecation_for`). The webhook
delivery engine asks one per attempt (`webhook_fault`: explicit faults, then chaos). All are
plain calls on plain values, so they can be wired into any layer and tested alone.

Loading checks every setup and timeline action before anything changes, then moves the clock,
applies the setup, arms rules, faults and deprecations and schedules the timeline on the mock
clock. `unload_all` disarms everything (state changes already applied stay); a reset of the
store forgets it all.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mockserver.core.clock import format_ts
from mockserver.core.errors import ScenarioError
from mockserver.core.problems import Problem
from mockserver.core.scheduler import Timer
from mockserver.domain.store import Store
from mockserver.scenarios.actions import Applier, Checker, WebhookSetup
from mockserver.scenarios.binding import bind_keys
from mockserver.scenarios.chaos import (
    LATENCY_KEY,
    Chaos,
    ChaosRule,
    Latency,
    WebhookChaos,
    draw,
    rule_key,
    webhook_key,
)
from mockserver.scenarios.decisions import ChaosHit, Fault, ForcedLimit
from mockserver.scenarios.files import scenario_file, shipped_names, shipped_scenario
from mockserver.scenarios.matching import PathPattern, contains, map_matches
from mockserver.scenarios.model import (
    Deprecation,
    Match,
    Rule,
    Scenario,
    WebhookFault,
)
from mockserver.scenarios.reach import Known, added_endpoints, known_of, unreachable
from mockserver.scenarios.summary import describe

log = logging.getLogger("mockserver")

MISSING: Any = object()  # a request without a (JSON) body
_TAKEN_KEPT = 4096  # (method, path) answers of `may_take` kept before starting again
_PATH_KEPT = 256  # characters of a path whose answer is kept, at most


@dataclass(frozen=True, slots=True)
class RequestView:
    """What rules match on: the path is without its regional prefix, header names lower-case."""

    method: str
    path: str
    query: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    key: str | None = None  # the bearer credential, if any
    body: Any = MISSING


@dataclass(slots=True)
class Loaded:
    scenario: Scenario
    loaded_at: int
    timers: list[Timer] = field(default_factory=list)
    done: list[bool] = field(default_factory=list)  # per timeline entry
    warnings: list[Problem] = field(default_factory=list)  # rules that can never fire


@dataclass(frozen=True, slots=True)
class TimelineTimer:
    """A timeline entry's timer: an object rather than a closure, so that a snapshot can save
    it with the scenario it belongs to."""

    engine: ScenarioEngine
    loaded: Loaded
    index: int

    def __call__(self, due: int) -> None:
        self.engine.run_timeline(self.loaded, self.index, due)


class ScenarioEngine:
    """Every loaded scenario of one store, in load order."""

    def __init__(
        self,
        store: Store,
        scenarios_dir: Path | None = None,
        webhook_setup: WebhookSetup | None = None,
        *,
        endpoint_ids: Callable[[], Iterable[str]] | None = None,
        key_binding: dict[str, str] | None = None,
        where: str = "the seed",
    ) -> None:
        """`webhook_setup`: what a scenario's `add_webhook_endpoint` calls (none: it is
        refused). `endpoint_ids`: the webhook endpoints the sandbox has now (the webhooks
        engine's), beside the seed's: a fault naming one made through the API is not warned
        about. `key_binding`: an account sandbox's keys for the default seed's (`binding.py`),
        so a scenario written for the seed acts, and matches, with the account's keys (empty
        for the server's). `where`: what warnings call this sandbox."""
        self.store = store
        self.scenarios_dir = scenarios_dir
        self.loaded: list[Loaded] = []
        self.rules: list[Rule] = []
        self.bursts: list[Rule] = []
        self.faults: list[WebhookFault] = []
        self.deprecations: list[Deprecation] = []
        # The chaos of the loaded scenarios, in load order, each with its block (for the seed)
        # and its scenario's name.
        self.chaos_rules: list[tuple[Chaos, ChaosRule, str]] = []
        self.latencies: list[tuple[Chaos, Latency]] = []
        self.chaos_webhooks: list[tuple[Chaos, WebhookChaos]] = []
        self.pending_webhooks: list[dict[str, Any]] = []
        self.timeline_errors: list[str] = []
        self.webhook_setup = webhook_setup
        self.key_binding = key_binding or {}
        self.where = where
        self.endpoint_ids = endpoint_ids
        # The keys of the accounts made through the control plane (the server's engine: its
        # rules apply to their requests too), beside the store's own.
        self.account_keys: Callable[[], Iterable[str]] | None = None
        self.active = False  # anything armed: the HTTP layer skips everything when not
        self.needs_body = False  # some rule matches on the request body
        self.gates: list[tuple[frozenset[str] | None, PathPattern | None]] = []
        self._taken: dict[tuple[str, str], bool] = {}  # may_take's answers
        # Watched files (`run --watch`): the last problem of a file that was saved invalid,
        # by the name of the scenario it held (`reload_error`), or by the file, for one that
        # never loaded (`errors`). Only a watching server shows `errors`.
        self.watching = False
        self.reload_errors: dict[str, dict[str, Any]] = {}
        self.file_errors: dict[str, dict[str, Any]] = {}
        store.reset_hooks.append(self._forget)

    # -- loading -------------------------------------------------------------------------

    def check(self, scenario: Scenario) -> None:
        """The checks of loading against this store, changing nothing: ScenarioError with
        every problem of the setup and timeline actions (each at its line)."""
        names = frozenset(item.name for item in _armed(scenario))
        checker = Checker(self.store, scenario, names)
        problems = checker.check(scenario.setup)
        for entry in scenario.timeline:
            problems += checker.check(entry.actions)
        if problems:
            raise ScenarioError.every(problems)

    def adopt(self, scenario: Scenario) -> Scenario:
        """`scenario` with the default seed's keys bound to this sandbox's (an account's)."""
        return bind_keys(scenario, self.key_binding)

    def warnings(self, scenario: Scenario) -> list[Problem]:
        """The match criteria of `scenario` that name what this sandbox lacks (`reach.py`)."""
        return unreachable(scenario, self.known(scenario.name))

    def known(self, replacing: str = "") -> Known:
        """What this sandbox has: its keys, the webhook endpoints of its seed and of the
        other loaded scenarios (`replacing` is being loaded again)."""
        others = [added_endpoints(x.scenario) for x in self.loaded if x.scenario.name != replacing]
        live = [] if self.endpoint_ids is None else list(self.endpoint_ids())
        keys = [] if self.account_keys is None else list(self.account_keys())
        endpoints = [*live, *(e for ids in others for e in ids)]
        return known_of(self.store, self.where, endpoints, keys)

    def replaces(self, scenario: Scenario) -> bool:
        """Whether a scenario of `scenario`'s name is loaded (a `replace` load swaps it)."""
        return any(loaded.scenario.name == scenario.name for loaded in self.loaded)

    def load(self, scenario: Scenario, *, replace: bool = False) -> Loaded:
        """Check, then apply a scenario; ScenarioError (with its lines) before any change.
        A match criterion that can never fire is a warning: logged, and kept on `Loaded`.
        With `replace` (a watched file saved again), a scenario of the same name that is
        loaded has its rules, timeline and chaos swapped for the new ones, and the new
        version's clock and setup are not applied: the data and the clock stay as they are."""
        self.adopt(scenario)
        self.check(scenario)
        warnings = self.warnings(scenario)
        for warning in warnings:
            log.warning("%s", warning)
        swap = replace and self.replaces(scenario)
        self._unload(scenario.name)  # loading a name again replaces it
        if not swap:
            self._move_clock(scenario)
        loaded = Loaded(scenario, self.store.now(), warnings=warnings)
        if not swap:
            applier = self._applier(scenario)
            for action in scenario.setup:
                applier.apply(action)
        version = scenario.version
        for item in _armed(scenario):
            item.scenario = scenario.name
        for rule in scenario.rules:
            rule.version = version
        self.loaded.append(loaded)
        for index, entry in enumerate(scenario.timeline):
            loaded.done.append(False)
            due = entry.when if entry.when is not None else loaded.loaded_at + (entry.after or 0)
            loaded.timers.append(self.store.scheduler.at(due, TimelineTimer(self, loaded, index)))
        self._rearm()
        return loaded

    def path_of(self, name: str) -> Path | None:
        """The shipped scenario called `name` (`legal_hold`), if there is one."""
        return shipped_scenario(name, self.scenarios_dir)

    def file_of(self, given: Path) -> Path:
        """A scenario argument (a file, or a shipped scenario's name) as the file to load."""
        return scenario_file(given, self.scenarios_dir)

    def available(self) -> list[str]:
        """The names `path_of` finds."""
        return shipped_names(self.scenarios_dir)

    def _move_clock(self, scenario: Scenario) -> None:
        spec, clock, scheduler = scenario.clock, self.store.clock, self.store.scheduler
        if spec.freeze:
            clock.freeze()
        if spec.set is not None:
            if spec.set >= clock.now():
                scheduler.run_until(spec.set)
            else:
                clock.set(spec.set)
        if spec.advance:
            scheduler.advance(spec.advance)

    def _applier(self, scenario: Scenario) -> Applier:
        def toggle(name: str, on: bool) -> None:
            for item in _armed(scenario):
                if item.name == name:
                    item.enabled = on
            self._rearm()

        return Applier(self.store, scenario, toggle, self.webhook_setup, self.pending_webhooks)

    def run_timeline(self, loaded: Loaded, index: int, due: int) -> None:
        """Apply timeline entry `index` of a loaded scenario (its timer's action)."""
        applier = self._applier(loaded.scenario)
        try:
            for action in loaded.scenario.timeline[index].actions:
                applier.apply(action)
        except ScenarioError as error:
            message = f"{error} (timeline, at {format_ts(due)})"
            log.warning("scenario %s: %s", loaded.scenario.name, message)
            self.timeline_errors.append(message)
        loaded.done[index] = True

    def unload(self, name: str) -> bool:
        """Disarm the scenario called `name` (what it changed stays); whether one was loaded."""
        found = any(item.scenario.name == name for item in self.loaded)
        self._unload(name)
        return found

    def version_of(self, name: str) -> str:
        """The version of the loaded scenario called `name` ("" when none is)."""
        for loaded in self.loaded:
            if loaded.scenario.name == name:
                return loaded.scenario.version
        return ""

    def _unload(self, name: str) -> None:
        for loaded in [item for item in self.loaded if item.scenario.name == name]:
            for timer in loaded.timers:
                timer.cancel()
            self.loaded.remove(loaded)
        self._rearm()

    def unload_all(self) -> int:
        """Disarm every scenario (cancel timelines); what they changed stays. The number."""
        count = len(self.loaded)
        for loaded in list(self.loaded):
            self._unload(loaded.scenario.name)
        return count

    def _forget(self) -> None:
        """After a store reset: the scheduler is already empty, the clock back at its start."""
        self.loaded.clear()
        self.pending_webhooks.clear()
        self.timeline_errors.clear()
        self._rearm()

    def _rearm(self) -> None:
        """Rebuild the flat lists the per-request questions walk."""
        scenarios = [loaded.scenario for loaded in self.loaded]
        every_rule = [rule for s in scenarios for rule in s.rules if rule.enabled]
        self.rules = [rule for rule in every_rule if rule.respond.burst_seconds is None]
        self.bursts = [rule for rule in every_rule if rule.respond.burst_seconds is not None]
        self.faults = [fault for s in scenarios for fault in s.webhooks if fault.enabled]
        self.deprecations = [d for s in scenarios for d in s.deprecations if d.enabled]
        blocks = [(s.name, s.chaos) for s in scenarios if s.chaos is not None]
        self.chaos_rules = [(c, rule, name) for name, c in blocks for rule in c.rules]
        self.latencies = [(c, c.latency) for _, c in blocks if c.latency is not None]
        self.chaos_webhooks = [(c, rule) for _, c in blocks for rule in c.webhooks]
        self.active = bool(self.rules or self.bursts or self.deprecations or blocks)
        matches = [rule.match for rule in self.rules]
        matches += [rule.match for _, rule, _ in self.chaos_rules]
        matches += [latency.match for _, latency in self.latencies]
        self.needs_body = any(match.has_body for match in matches)
        # What a request's method and path must pass for any rule to take it: most requests
        # pass none, and are answered without reading their headers, query or body.
        self.gates = [(match.methods, match.path) for match in matches]
        self._taken.clear()

    def applies(self, method: str, path: str) -> bool:
        """Whether the loaded scenarios may do anything to a request of this method and path:
        a deprecation header, or a rule, chaos rule or latency that could take it."""
        return bool(self.deprecations) or self.may_take(method, path)

    def may_take(self, method: str, path: str) -> bool:
        """Whether some rule, chaos rule or latency could take a request of this method and
        path (matching it on the rest is `decide`'s and `chaos_decide`'s). Remembered per
        method and path (a bounded number of them), since most requests repeat a few."""
        known = self._taken.get((method, path))
        if known is not None:
            return known
        taken = False
        for methods, pattern in self.gates:
            if (methods is None or method in methods) and (
                pattern is None or pattern.matches(path)
            ):
                taken = True
                break
        if len(path) <= _PATH_KEPT:  # a client's long paths are not worth their memory
            if len(self._taken) >= _TAKEN_KEPT:
                self._taken.clear()
            self._taken[(method, path)] = taken
        return taken

    # -- the questions -------------------------------------------------------------------

    def decide(self, request: RequestView) -> Rule | None:
        """The rule that answers this request, if any. Every matching rule counts it, so
        `nth` and `times` of one rule never depend on another rule."""
        chosen: Rule | None = None
        for rule in self.rules:
            if _matches(rule.match, request) and rule.should_fire() and chosen is None:
                chosen = rule
        return chosen

    def forced_rate_limit(self, identity: str, method: str, path: str) -> ForcedLimit | None:
        """Whether this credential's window counts as full now. A burst starts at the rule's
        nth matching request and refuses matching requests for `seconds` of mock time (at
        most `times` of them), then is spent."""
        if not self.bursts:  # Authentication reads `bursts` first; a direct caller may not
            return None
        now = self.store.now()
        request = RequestView(method, path, key=identity)
        for rule in self.bursts:
            if not _matches(rule.match, request):
                continue
            seconds = rule.respond.burst_seconds or 0
            if rule.burst_end is None:
                rule.seen += 1
                if rule.seen < (rule.match.nth or 1):
                    continue
                rule.burst_end = now + seconds
            elif now >= rule.burst_end:
                continue
            elif rule.match.times is not None and rule.fired >= rule.match.times:
                continue
            rule.fired += 1
            return ForcedLimit(
                rule.name,
                rule.burst_end,
                max(1, rule.burst_end - now),
                rule.scenario,
                rule.version,
            )
        return None

    def chaos_decide(self, request: RequestView, account: str | None) -> ChaosHit | None:
        """The chaos rule that hits this request, if any (asked when no rule answered it): the
        first that matches and whose draw falls under its probability. Every matching chaos
        rule counts the request among `account`'s, hit or not, so its draws depend only on
        the seed, the account and that count."""
        chosen: ChaosHit | None = None
        for chaos, rule, scenario in self.chaos_rules:
            if _matches(rule.match, request):
                key = rule_key(rule)
                value = rule.hit_next(chaos.seed, account, key, rule.probability, chosen is None)
                if value is not None:
                    chosen = ChaosHit(rule.label, scenario, value, rule.respond)
        return chosen

    def chaos_latency(
        self, request: RequestView, account: str | None
    ) -> tuple[float, float] | None:
        """(milliseconds to wait, the draw) for this request when a chaos latency matches it:
        the first that matches answers, every one that matches counts it (per account)."""

        chosen: tuple[float, float] | None = None
        for chaos, latency in self.latencies:
            if not _matches(latency.match, request):
                continue
            ordinal = latency.next_ordinal(account)
            if chosen is None:
                value = draw(chaos.seed, account, LATENCY_KEY, ordinal)
                chosen = (latency.quantile(value), value)
        return chosen

    def webhook_fault(
        self, endpoint_id: str, event_type: str, attempt: int, account: str | None = None
    ) -> Fault | None:
        """The fault to inject into attempt number `attempt` (1-based) of delivering an event
        of `event_type` to endpoint `endpoint_id` of `account`, or None to deliver it
        normally. A scenario's explicit faults win; failing those, chaos draws per attempt."""
        for fault in self.faults:
            if not _takes(fault.endpoint, fault.event, endpoint_id, event_type):
                continue
            if fault.first is not None and attempt > fault.first:
                continue
            if fault.attempts is not None and attempt not in fault.attempts:
                continue
            return Fault(fault.kind, fault.name, fault.status, fault.delay_seconds)
        return (
            self._webhook_chaos(endpoint_id, event_type, account) if self.chaos_webhooks else None
        )

    def _webhook_chaos(
        self, endpoint_id: str, event_type: str, account: str | None
    ) -> Fault | None:
        """The first webhook chaos rule matching this attempt whose draw hits; every matching
        one counts the attempt among `account`'s (a delayed attempt asks, and counts, again
        when it is due)."""

        chosen: Fault | None = None
        for chaos, rule in self.chaos_webhooks:
            if _takes(rule.endpoint, rule.event, endpoint_id, event_type):
                key = webhook_key(rule)
                value = rule.hit_next(chaos.seed, account, key, rule.probability, chosen is None)
                if value is not None:
                    chosen = Fault(rule.kind, rule.label, rule.status, rule.delay_seconds, value)
        return chosen

    def deprecation_for(self, method: str, path: str) -> Deprecation | None:
        for item in self.deprecations:
            if (item.method is None or item.method == method) and item.path.matches(path):
                return item
        return None

    # -- reporting -----------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """What `GET /_mock/scenarios` shows."""
        shown: dict[str, Any] = {
            "object": "list",
            "data": [
                describe(loaded, self.reload_errors.get(loaded.scenario.name))
                for loaded in self.loaded
            ],
            "available": self.available(),
            "timeline_errors": list(self.timeline_errors),
            "pending_webhook_endpoints": list(self.pending_webhooks),
        }
        if self.watching:
            shown["errors"] = list(self.file_errors.values())
        return shown


def _armed(scenario: Scenario) -> list[Rule | WebhookFault | Deprecation]:
    """Everything of a scenario that has a name and can be turned on and off."""
    return [*scenario.rules, *scenario.webhooks, *scenario.deprecations]


def _takes(endpoint: str | None, event: str | None, endpoint_id: str, event_type: str) -> bool:
    """Whether a webhook fault (or chaos rule) of `endpoint` and `event` (None: any) takes an
    attempt to `endpoint_id` of `event_type`."""
    if endpoint is not None and endpoint != endpoint_id:
        return False
    return event is None or fnmatch.fnmatchcase(event_type, event)


def _matches(match: Match, request: RequestView) -> bool:
    if match.methods is not None and request.method not in match.methods:
        return False
    if match.path is not None and not match.path.matches(request.path):
        return False
    if match.keys is not None and request.key not in match.keys:
        return False
    if match.headers and not map_matches(match.headers, request.headers):
        return False
    if match.query and not map_matches(match.query, request.query):
        return False
    return not match.has_body or (
        request.body is not MISSING and contains(request.body, match.body)
    )
