"""Scenario files: YAML text -> JSON Schema -> the checks a schema cannot say -> `Scenario`.

Every problem is a `ScenarioError` reported as `file:line: path: message`. The line comes from
the same node walk the seed loader uses (`mockserver.seeds.yaml_lines`): jsonschema names the
offending node by its path, and the path is looked up in the composed YAML. A part the schema
refuses (a rule, a setup action, a step, ...) is skipped by the checks past it, and the other
parts are checked, so one reading finds the problems of every part.

Scenario YAML is read with YAML 1.2's booleans (only true/false; `on`, `yes`, `no` stay
strings, so `on:` can be a field) and with timestamps kept as the text written, so the schema
sees strings and every time is parsed in one place (`parse_ts`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from mockserver.core.clock import parse_ts
from mockserver.core.errors import ScenarioError
from mockserver.scenarios.chaos_loader import ChaosBuilder
from mockserver.scenarios.matching import PathPattern, PatternError
from mockserver.scenarios.model import (
    ERROR_TYPES,
    Action,
    ClockSpec,
    Deprecation,
    ErrorSpec,
    Match,
    Respond,
    Rule,
    Scenario,
    TimelineEntry,
    WebhookFault,
)
from mockserver.scenarios.schema_errors import schema_problems
from mockserver.scenarios.step_checks import build_steps
from mockserver.seeds.source_text import read_source
from mockserver.seeds.yaml_lines import PathT, StrictLoader, yaml_error, yaml_load

T = TypeVar("T")
_BOOL_TAG = "tag:yaml.org,2002:bool"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_SEED_KEYS = re.compile(r"(?m)^(accounts|reference_time|limits)\s*:")
SETUP_ONLY = frozenset({"enable", "disable"})  # ... are timeline-only: nothing to toggle yet


class _Loader(StrictLoader):
    """YAML 1.2 booleans, timestamps as strings."""


_Loader.yaml_implicit_resolvers = {
    first: [r for r in resolvers if r[0] != _BOOL_TAG]
    for first, resolvers in StrictLoader.yaml_implicit_resolvers.items()
}


_Loader.add_implicit_resolver(
    _BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_constructor(_TIMESTAMP_TAG, lambda loader, node: loader.construct_scalar(node))  # type: ignore[arg-type]


def looks_like_seed(text: str) -> bool:
    """A seed has top-level `accounts:` (or `reference_time:`, `limits:`); a scenario never."""
    return _SEED_KEYS.search(text) is not None


def load_scenario(path: Path) -> Scenario:
    """Read and check a scenario file; ScenarioError with every problem, each at its line."""
    return load_scenario_text(read_source(path, ScenarioError, "scenario"), str(path))


def load_scenario_text(text: str, source: str) -> Scenario:
    """Parse and check scenario YAML; `source` names it in errors (a file, or `<inline>`)."""
    scenario, problems = read_scenario_text(text, source)
    if problems:
        raise ScenarioError.every(problems)
    return scenario


def read_scenario(path: Path) -> tuple[Scenario, list[ScenarioError]]:
    """`read_scenario_text` of a file."""
    return read_scenario_text(read_source(path, ScenarioError, "scenario"), str(path))


def read_scenario_text(text: str, source: str) -> tuple[Scenario, list[ScenarioError]]:
    """Check scenario YAML as far as it can be checked: every problem, in the file's order,
    and the scenario built from the parts that passed (never to be loaded if there is a
    problem; `mockserver validate` checks it against a seed). A part the schema refuses (a
    rule, a setup action, a step, the clock ...) is skipped by the checks past the schema, and
    nothing that refers to it is reported missing. ScenarioError when nothing can be read:
    not YAML, empty, or not a mapping."""
    try:
        value = yaml_load(text, _Loader)
    except yaml.YAMLError as exc:
        raise yaml_error(exc, text, source, ScenarioError) from None
    if value is None:
        raise ScenarioError(source, 1, "scenario file is empty")
    if not isinstance(value, dict):
        raise ScenarioError(source, 1, "the top level must be a mapping")
    scenario = Scenario(name=str(value.get("name", "")), source=source, text=text)
    problems, refused = schema_problems(scenario, value)
    builder = _Builder(scenario, value, refused)
    builder.build()
    problems += builder.problems
    problems.sort(key=lambda problem: problem.line)  # stable: the schema's first on a line
    return scenario, problems


class _Builder:
    """The checks past the schema, building the typed scenario as it goes from the parts of
    the file the schema did not refuse (`refused`, see `schema_errors.part_of`)."""

    def __init__(self, scenario: Scenario, value: dict[str, Any], refused: set[PathT]) -> None:
        self.scenario = scenario
        self.value = value
        self.refused = refused
        self.names: dict[str, PathT] = {}
        self.chaos_names: set[str] = set()  # names a timeline cannot turn on or off
        self.problems: list[ScenarioError] = []

    def fail(self, path: PathT, message: str) -> ScenarioError:
        return self.scenario.error(path, message)

    def build(self) -> None:
        """Fill the scenario with the parts that pass; `problems` gets every problem found,
        one per item at most (an item's first)."""
        s, value, refused = self.scenario, self.value, self.refused
        if ("description",) not in refused:
            s.description = value.get("description", "")
        if ("key",) in refused:
            s.key_refused = True
        else:
            s.key = value.get("key", s.key)
        if ("clock",) not in refused:
            try:
                s.clock = self._clock(value.get("clock", {}))
            except ScenarioError as error:
                self.problems.append(error)
        s.setup = self._each("setup", self._action)
        s.rules = self._each("rules", self._rule)
        s.webhooks = self._each("webhooks", self._fault)
        s.deprecations = self._each("deprecations", self._deprecation)
        if "chaos" in value and ("chaos",) not in refused:
            s.chaos = ChaosBuilder(self).build(value["chaos"])
        s.timeline = self._each("timeline", self._timeline)
        build_steps(self.scenario, self.value, self.refused, self.problems)

    def _each(self, field: str, build: Callable[[dict[str, Any], PathT], T]) -> list[T]:
        """Each item of the list `field`, built; a bad one is kept as a problem and skipped,
        as is one the schema refused."""
        built: list[T] = []
        if (field,) in self.refused:
            return built
        for index, raw in enumerate(self.value.get(field, [])):
            path = (field, index)
            if path not in self.refused:
                try:
                    built.append(build(raw, path))
                    continue
                except ScenarioError as error:
                    self.problems.append(error)
            self._skipped(raw, path)
        return built

    def _skipped(self, raw: Any, path: PathT) -> None:
        """Note what a skipped item would have declared, so that what refers to it is not
        reported missing: a rule's, fault's or deprecation's name (for enable and disable),
        the ids its actions add (for the checks against a seed)."""
        if not isinstance(raw, dict):
            return
        field = path[0]
        if field in ("rules", "webhooks", "deprecations"):
            name = raw.get("name", f"deprecation-{path[1]}" if field == "deprecations" else None)
            if isinstance(name, str):
                self.names.setdefault(name, path)
        actions = [raw] if field == "setup" else raw.get("do") if field == "timeline" else None
        for action in actions if isinstance(actions, list) else []:
            for args in action.values() if isinstance(action, dict) else []:
                ident = args.get("id") if isinstance(args, dict) else None
                if isinstance(ident, str):
                    self.scenario.skipped_ids.add(ident)

    def _time(self, raw: str, path: PathT) -> int:
        try:
            return int(parse_ts(raw))
        except (ValueError, OverflowError):
            raise self.fail(path, f"'{raw}' is not an RFC 3339 timestamp") from None

    def name(self, name: str, path: PathT) -> str:
        """`name`, checked to be unused in the scenario so far."""
        if name in self.names:
            first = self.scenario.line_of(self.names[name])
            raise self.fail(path, f"the name '{name}' is already used on line {first}")
        self.names[name] = path
        return name

    def _pattern(self, text: str, path: PathT) -> PathPattern:
        try:
            return PathPattern(text)
        except PatternError as exc:
            raise self.fail(path, str(exc)) from None

    def _clock(self, raw: dict[str, Any]) -> ClockSpec:
        at = raw.get("set")
        return ClockSpec(
            freeze=raw.get("freeze", False),
            set=None if at is None else self._time(at, ("clock", "set")),
            advance=raw.get("advance", 0),
        )

    def _action(self, raw: dict[str, Any], path: PathT, *, timeline: bool = False) -> Action:
        kind, args = next(iter(raw.items()))
        if kind in SETUP_ONLY and not timeline:
            raise self.fail((*path, kind), f"'{kind}' is a timeline action")
        return Action(kind, args if isinstance(args, dict) else {"name": args}, (*path, kind))

    def _rule(self, raw: dict[str, Any], path: PathT) -> Rule:
        name = self.name(raw["name"], (*path, "name"))
        match = self.match(raw.get("match", {}), (*path, "match"))
        respond = self.respond(raw["respond"], (*path, "respond"))
        if respond.burst_seconds is not None:
            for field in ("headers", "query", "body"):
                if field in raw.get("match", {}):
                    raise self.fail(
                        (*path, "match", field),
                        f"a rate_limit_burst rule matches on method, path and key only, "
                        f"not {field}",
                    )
        return Rule(name, match, respond, path, enabled=raw.get("enabled", True))

    def match(self, raw: dict[str, Any], path: PathT) -> Match:
        methods = raw.get("method")
        keys = raw.get("key")
        return Match(
            methods=None
            if methods is None
            else frozenset([methods] if isinstance(methods, str) else methods),
            path=None if "path" not in raw else self._pattern(raw["path"], (*path, "path")),
            keys=None if keys is None else frozenset([keys] if isinstance(keys, str) else keys),
            headers={k.lower(): v for k, v in raw.get("headers", {}).items()},
            query=dict(raw.get("query", {})),
            body=raw.get("body"),
            has_body="body" in raw,
            nth=raw.get("nth"),
            times=raw.get("times"),
        )

    def respond(self, raw: dict[str, Any], path: PathT) -> Respond:
        burst = raw.get("rate_limit_burst")
        if burst is not None:
            extra = next((field for field in raw if field != "rate_limit_burst"), None)
            if extra is not None:
                raise self.fail(
                    (*path, extra),
                    "rate_limit_burst answers the 429 itself: it takes no other field",
                )
            return Respond(burst_seconds=burst["seconds"])
        fault = self._transport_fault(raw, path)
        status: Any = raw.get("status")
        if status is None and any(field in raw for field in ("error", "body", "headers")):
            raise self.fail(
                path, "missing required field 'status' (needed with error, body or headers)"
            )
        if "error" in raw and "body" in raw:
            raise self.fail((*path, "body"), "give either error or body, not both")
        error = raw.get("error")
        if error is not None and status < 400:
            raise self.fail((*path, "status"), "an error response needs a status of 400 or more")
        return Respond(
            status=status,
            error=None
            if error is None
            else ErrorSpec(
                error.get("type") or _default_type(status), error["message"], error.get("param")
            ),
            headers=dict(raw.get("headers", {})),
            body=raw.get("body"),
            has_body="body" in raw,
            delay_ms=raw.get("delay_ms", 0),
            fault=fault,
            bytes_per_second=raw.get("bytes_per_second", 0),
            stall_ms=raw.get("stall_ms", 0),
        )

    def _transport_fault(self, raw: dict[str, Any], path: PathT) -> str | None:
        """A respond's transport `fault`, checked against the fields beside it: its own
        parameter is required and no other fault's is allowed; a fault that sends no answer
        (reset, stall, drop_after_commit) takes no status, error, body or headers."""
        fault: str | None = raw.get("fault")
        for param, owner in (("bytes_per_second", "slow_body"), ("stall_ms", "stall")):
            if param in raw and fault != owner:
                raise self.fail((*path, param), f"{param} applies to the {owner} fault only")
            if fault == owner and param not in raw:
                raise self.fail(path, f"a {owner} fault needs {param}")
        if fault in ("reset", "stall", "drop_after_commit"):
            for field in ("status", "error", "body", "headers"):
                if field in raw:
                    raise self.fail(
                        (*path, field), f"a {fault} fault sends no answer: it takes no {field}"
                    )
        return fault

    def _fault(self, raw: dict[str, Any], path: PathT) -> WebhookFault:
        name = self.name(raw["name"], (*path, "name"))
        kind = self.webhook_fault_kind(raw, path)
        attempts = raw.get("attempts")
        event = raw.get("event")
        return WebhookFault(
            name=name,
            kind=kind,
            at=path,
            enabled=raw.get("enabled", True),
            endpoint=raw.get("endpoint"),
            event=None if event in (None, "*") else event,
            first=attempts if isinstance(attempts, int) else None,
            attempts=frozenset(attempts) if isinstance(attempts, list) else None,
            status=raw.get("status", 500),
            delay_seconds=raw.get("delay_seconds", 0),
        )

    def webhook_fault_kind(self, raw: dict[str, Any], path: PathT) -> str:
        """A webhook fault's `fault`, checked against the fields beside it: `status` goes with
        fail (400 to 599), `delay_seconds` with delay, which needs it."""
        kind: str = raw["fault"]
        if "status" in raw and kind != "fail":
            raise self.fail((*path, "status"), "status applies to the fail fault only")
        if kind == "delay" and "delay_seconds" not in raw:
            raise self.fail(path, "a delay fault needs delay_seconds")
        if "delay_seconds" in raw and kind != "delay":
            raise self.fail((*path, "delay_seconds"), "delay_seconds applies to delay only")
        if kind == "fail" and not 400 <= raw.get("status", 500) <= 599:
            raise self.fail((*path, "status"), "a failed delivery answers 400 to 599")
        return kind

    def _deprecation(self, raw: dict[str, Any], path: PathT) -> Deprecation:
        index = path[-1]
        name = self.name(raw.get("name", f"deprecation-{index}"), (*path, "name"))
        deprecation = self._time(raw["deprecation"], (*path, "deprecation"))
        sunset = self._time(raw["sunset"], (*path, "sunset"))
        if sunset < deprecation:
            raise self.fail(
                (*path, "sunset"),
                f"sunset ({raw['sunset']}) is earlier than deprecation ({raw['deprecation']})",
            )
        return Deprecation(
            name=name,
            path=self._pattern(raw["path"], (*path, "path")),
            deprecation=deprecation,
            sunset=sunset,
            at=path,
            method=raw.get("method"),
            link=raw.get("link"),
            enabled=raw.get("enabled", True),
        )

    def _timeline(self, raw: dict[str, Any], path: PathT) -> TimelineEntry:
        if ("after" in raw) == ("at" in raw):
            raise self.fail(path, "give exactly one of after (seconds) or at (a timestamp)")
        actions = [
            self._action(a, (*path, "do", i), timeline=True) for i, a in enumerate(raw["do"])
        ]
        for action in actions:
            if action.kind in SETUP_ONLY and action.args["name"] in self.chaos_names:
                self.problems.append(
                    self.fail(
                        action.at,
                        f"'{action.args['name']}' is a chaos rule, which is not turned on and "
                        "off: it acts while its scenario is loaded",
                    )
                )
            elif action.kind in SETUP_ONLY and action.args["name"] not in self.names:
                self.problems.append(
                    self.fail(
                        action.at,
                        f"no rule, webhook fault or deprecation named '{action.args['name']}'",
                    )
                )
        return TimelineEntry(
            actions=actions,
            at=path,
            after=raw.get("after"),
            when=None if "at" not in raw else self._time(raw["at"], (*path, "at")),
        )


def _default_type(status: int) -> str:
    return ERROR_TYPES.get(status, "api_error" if status >= 500 else "bad_request")
