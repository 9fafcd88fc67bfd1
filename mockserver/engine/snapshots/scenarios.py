"""A loaded scenario in a snapshot: its file's text, read again by the scenario loader, and
what loading and requests changed since (rule counters, what the scenario turned on or off,
and a chaos block's per-account counters, so that a restored sandbox goes on with the same
draws).

Keeping the text rather than the parsed objects means a snapshot holds nothing a scenario file
could not: the loader checks it as it checks any file, and the file is readable as it was
written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mockserver.core.containers import DictOf, ListOf, Obj, Opt
from mockserver.core.containers import Tuple as Fixed
from mockserver.core.errors import ScenarioError
from mockserver.core.kinds import Bool, Int, Invalid, Kind, Reader, Str, Writer
from mockserver.engine.snapshots.records import TIME
from mockserver.scenarios.loader import load_scenario_text
from mockserver.scenarios.model import Scenario

if TYPE_CHECKING:
    from mockserver.scenarios.chaos import Chaos, Counted

_RULE = Fixed(Bool(), Int(), Int(), Opt(TIME))  # enabled, seen, fired, burst end
_SWITCH = Bool()  # a webhook fault's or deprecation's `enabled`
_FIELDS = ("source", "text", "rules", "webhooks", "deprecations")
# Per account ('' for none): [matched, hit] of a chaos rule or webhook chaos rule; matched of
# the latency. Only a scenario with a chaos block has the field `chaos`, so a file of one
# without is as it was before chaos.
_ACCOUNT = Str(max_len=4096)
_COUNTS = DictOf(_ACCOUNT, Fixed(Int(), Int()))
_CHAOS = Obj(
    {
        "rules": ListOf(_COUNTS),
        "latency": Opt(DictOf(_ACCOUNT, Int())),
        "webhooks": ListOf(_COUNTS),
    },
    "A chaos block's counters per account ('' for none): [matched, hit], matched for latency.",
)


class ScenarioKind(Kind):
    """`{"source", "text", "rules": [[enabled, seen, fired, burst_end]], "webhooks":
    [enabled], "deprecations": [enabled]}`, and `"chaos"` when the scenario has a chaos
    block."""

    def encode(self, value: Any, out: Writer) -> Any:
        scenario: Scenario = value
        data = {
            "source": scenario.source,
            "text": scenario.text,
            "rules": [[r.enabled, r.seen, r.fired, r.burst_end] for r in scenario.rules],
            "webhooks": [fault.enabled for fault in scenario.webhooks],
            "deprecations": [item.enabled for item in scenario.deprecations],
        }
        if scenario.chaos is not None:
            data["chaos"] = _CHAOS.encode(_chaos_counters(scenario.chaos), out)
        return data

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or set(data) - {"chaos"} != set(_FIELDS):
            raise Invalid(f"must be an object of {', '.join(_FIELDS)} (and chaos)")
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
        if ("chaos" in data) != (scenario.chaos is not None):
            raise Invalid("must have chaos counters exactly when its text has a chaos block")
        if scenario.chaos is not None:
            _restore_chaos(scenario.chaos, _CHAOS.decode(data["chaos"], into))
        for rule in scenario.rules:
            rule.scenario = scenario.name
            rule.version = scenario.version
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
                "chaos": _CHAOS.schema(),
            },
            "required": list(_FIELDS),
            "additionalProperties": False,
        }


SCENARIO = ScenarioKind()


def _chaos_counters(chaos: Chaos) -> dict[str, Any]:
    def pairs(counted: Counted) -> dict[str, tuple[int, int]]:
        return {key: (seen, counted.hits.get(key, 0)) for key, seen in counted.seen.items()}

    return {
        "rules": [pairs(rule) for rule in chaos.rules],
        "latency": None if chaos.latency is None else dict(chaos.latency.seen),
        "webhooks": [pairs(rule) for rule in chaos.webhooks],
    }


def _restore_chaos(chaos: Chaos, saved: dict[str, Any]) -> None:
    """Put the saved counters back on the chaos block read again from the text."""
    rules, latency, webhooks = saved["rules"], saved["latency"], saved["webhooks"]
    if (
        len(rules) != len(chaos.rules)
        or len(webhooks) != len(chaos.webhooks)
        or (latency is None) != (chaos.latency is None)
    ):
        raise Invalid("chaos must have counters for each chaos rule, latency and webhook rule")
    for counted, counts in [
        *zip(chaos.rules, rules, strict=True),
        *zip(chaos.webhooks, webhooks, strict=True),
    ]:
        if any(hit > seen for seen, hit in counts.values()):
            raise Invalid("chaos counters cannot hit more requests than they matched")
        counted.seen = {key: seen for key, (seen, _) in counts.items()}
        counted.hits = {key: hit for key, (_, hit) in counts.items() if hit}
    if chaos.latency is not None:
        chaos.latency.seen = dict(latency)
