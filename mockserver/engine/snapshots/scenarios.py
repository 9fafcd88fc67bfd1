"""A loaded scenario in a snapshot: its file's text, read again by the scenario loader, and
what loading and requests changed since (rule counters, what the scenario turned on or off).

Keeping the text rather than the parsed objects means a snapshot holds nothing a scenario file
could not: the loader checks it as it checks any file, and the file is readable as it was
written.
"""

from __future__ import annotations

from typing import Any

from mockserver.core.errors import ScenarioError
from mockserver.engine.snapshots.kinds import (
    Bool,
    Int,
    Invalid,
    Kind,
    ListOf,
    Opt,
    Reader,
    Str,
    Writer,
)
from mockserver.engine.snapshots.kinds import Tuple as Fixed
from mockserver.scenarios.loader import load_scenario_text
from mockserver.scenarios.model import Scenario

_RULE = Fixed(Bool(), Int(), Int(), Opt(Int(-(2**53), 2**53)))  # enabled, seen, fired, burst end
_SWITCH = Bool()  # a webhook fault's or deprecation's `enabled`
_FIELDS = ("source", "text", "rules", "webhooks", "deprecations")


class ScenarioKind(Kind):
    """`{"source", "text", "rules": [[enabled, seen, fired, burst_end]], "webhooks":
    [enabled], "deprecations": [enabled]}`."""

    def encode(self, value: Any, out: Writer) -> Any:
        scenario: Scenario = value
        return {
            "source": scenario.source,
            "text": scenario.text,
            "rules": [[r.enabled, r.seen, r.fired, r.burst_end] for r in scenario.rules],
            "webhooks": [fault.enabled for fault in scenario.webhooks],
            "deprecations": [item.enabled for item in scenario.deprecations],
        }

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or set(data) != set(_FIELDS):
            raise Invalid(f"must be an object of {', '.join(_FIELDS)}")
        text = Str().decode(data["text"], into)
        source = Str(max_len=4096).decode(data["source"], into)
        try:
            scenario = into.context.sandbox.scenarios.adopt(load_scenario_text(text, source))
        except ScenarioError as error:
            raise Invalid(f"holds a scenario that does not load: {error}") from None
        rules = ListOf(_RULE).decode(data["rules"], into)
        webhooks = ListOf(_SWITCH).decode(data["webhooks"], into)
        deprecations = ListOf(_SWITCH).decode(data["deprecations"], into)
        if (len(rules), len(webhooks), len(deprecations)) != (
            len(scenario.rules),
            len(scenario.webhooks),
            len(scenario.deprecations),
        ):
            raise Invalid("must have one entry per rule, webhook fault and deprecation of its text")
        for rule, (enabled, seen, fired, burst_end) in zip(scenario.rules, rules, strict=True):
            rule.enabled, rule.seen, rule.fired, rule.burst_end = enabled, seen, fired, burst_end
        for fault, enabled in zip(scenario.webhooks, webhooks, strict=True):
            fault.enabled = enabled
        for item, enabled in zip(scenario.deprecations, deprecations, strict=True):
            item.enabled = enabled
        for rule in scenario.rules:
            rule.scenario = scenario.name
        for fault in scenario.webhooks:
            fault.scenario = scenario.name
        for item in scenario.deprecations:
            item.scenario = scenario.name
        return scenario

    def schema(self) -> dict[str, Any]:
        flags = {"type": "array", "items": {"type": "boolean"}}
        return {
            "type": "object",
            "description": "A loaded scenario: its file's text and its counters.",
            "properties": {
                "source": {"type": "string"},
                "text": {"type": "string"},
                "rules": {"type": "array", "items": _RULE.schema()},
                "webhooks": flags,
                "deprecations": flags,
            },
            "required": list(_FIELDS),
            "additionalProperties": False,
        }


SCENARIO = ScenarioKind()
