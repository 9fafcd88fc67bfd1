"""A scenario written for the default seed, loaded into an account: its keys bound to the
account's.

The shipped scenarios name the default seed's keys (`sk_test_mock_full`, the key a scenario
acts with when it names none, and `sk_test_mock_readonly`). An account made through the control
plane has exactly one key of each kind, so the binding is one to one: every place the file
names one of those keys (the scenario's `key`, a rule's or chaos rule's `match.key`, a setup or
timeline action's `key`) names the account's key of that kind instead. A key the account
holds itself is never rebound, and any other key is left as written (and warned about when a
rule matches on it: `reach.py`).
"""

from __future__ import annotations

from collections.abc import Mapping

from mockserver.scenarios.model import Match, Scenario

DEFAULT_READONLY_KEY = "sk_test_mock_readonly"  # the default seed's read-only key


def bind_keys(scenario: Scenario, binding: Mapping[str, str]) -> Scenario:
    """Rename the keys of `binding` (seed key -> account key) everywhere `scenario` names
    them, in place; the scenario."""
    if not binding:
        return scenario
    scenario.key = binding.get(scenario.key, scenario.key)
    matches = [rule.match for rule in scenario.rules]
    if scenario.chaos is not None:
        matches += [rule.match for rule in scenario.chaos.rules]
        if scenario.chaos.latency is not None:
            matches.append(scenario.chaos.latency.match)
    for match in matches:
        _bind_match(match, binding)
    actions = [*scenario.setup, *(a for entry in scenario.timeline for a in entry.actions)]
    for action in actions:
        key = action.args.get("key")
        if isinstance(key, str) and key in binding:
            action.args = {**action.args, "key": binding[key]}
    return scenario


def _bind_match(match: Match, binding: Mapping[str, str]) -> None:
    if match.keys is not None:
        match.keys = frozenset(binding.get(key, key) for key in match.keys)
