"""The checks of a scenario's `steps` (the replay script) that the schema cannot make: one
kind per step, `expect`, `capture` and `repeat` only on a request, one way of sending a body,
a valid `set_clock` time, and every `${name}` captured by an earlier step. A bad step is a
problem and is skipped; the names it would capture still count, so no later step echoes it.
"""

from __future__ import annotations

import re
from typing import Any

from mockserver.core.clock import parse_ts
from mockserver.core.errors import ScenarioError
from mockserver.scenarios.model import Scenario, Step
from mockserver.seeds.yaml_lines import PathT

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
STEP_KINDS = ("request", "advance", "set_clock", "wait_for_deliveries")
_BODIES = ("body", "form", "content")  # the ways a step's request carries a body


def build_steps(
    scenario: Scenario,
    value: dict[str, Any],
    refused: set[PathT],
    problems: list[ScenarioError],
) -> None:
    """Add the file's steps that pass to `scenario.steps`, and each problem to `problems`
    (`refused`: the parts the schema refused, skipped)."""
    if ("steps",) in refused:
        return
    defined: set[str] = set()
    for i, item in enumerate(value.get("steps", [])):
        path = ("steps", i)
        if path not in refused:
            try:
                scenario.steps.append(_step(scenario, item, path, defined))
            except ScenarioError as error:
                problems.append(error)
        capture = item.get("capture") if isinstance(item, dict) else None
        if isinstance(capture, dict):  # a bad step's names too: no echoes
            defined.update(str(name) for name in capture)


def _step(scenario: Scenario, item: dict[str, Any], path: PathT, defined: set[str]) -> Step:
    kinds = [kind for kind in STEP_KINDS if kind in item]
    if len(kinds) != 1:
        raise scenario.error(
            path,
            "a step needs exactly one of "
            + ", ".join(STEP_KINDS)
            + (f" (found {', '.join(kinds)})" if kinds else ""),
        )
    kind = kinds[0]
    for extra in ("expect", "capture", "repeat"):
        if extra in item and kind != "request":
            raise scenario.error((*path, extra), f"{extra} goes with a request step")
    if kind == "request":
        bodies = [name for name in _BODIES if name in item["request"]]
        if len(bodies) > 1:
            raise scenario.error(
                (*path, "request", bodies[1]),
                f"a request has at most one of {', '.join(_BODIES)}",
            )
    if kind == "set_clock":
        raw = item["set_clock"]
        try:
            parse_ts(raw)
        except (ValueError, OverflowError):
            message = f"'{raw}' is not an RFC 3339 timestamp"
            raise scenario.error((*path, "set_clock"), message) from None
    for used, where in _variables(item, path):
        if used not in defined:
            message = f"variable '${{{used}}}' is not captured by an earlier step"
            raise scenario.error(where, message)
    return Step(kind, item, path, item.get("name"))


def _variables(value: Any, path: PathT) -> list[tuple[str, PathT]]:
    """Every `${name}` used in the strings of a step, with where it is."""
    found: list[tuple[str, PathT]] = []
    if isinstance(value, str):
        found.extend((name, path) for name in _VARIABLE.findall(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "capture":
                found.extend(_variables(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_variables(item, (*path, index)))
    return found
