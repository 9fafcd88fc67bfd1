"""What `GET /_mock/scenarios` shows of one loaded scenario: its rules with their counters,
webhook faults, deprecations, timeline and chaos."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mockserver.core.clock import format_ts
from mockserver.core.scheduler import Timer
from mockserver.scenarios.chaos import describe as describe_chaos

if TYPE_CHECKING:
    from mockserver.core.problems import Problem
    from mockserver.scenarios.model import Scenario


class Loaded(Protocol):
    """What is shown of a loaded scenario (`engine.Loaded`): the scenario, when it was
    loaded, its timeline's timers and which of them ran."""

    scenario: Scenario
    loaded_at: int
    timers: list[Timer]
    done: list[bool]
    warnings: list[Problem]


INLINE = "<inline>"  # the source of a scenario sent as YAML text without one


def describe(loaded: Loaded, reload_error: dict[str, Any] | None = None) -> dict[str, Any]:
    """A loaded scenario: its file (`source`, null for inline YAML), `version` (which save
    of it), when it was loaded (on the sandbox's clock), its parts with their counters, and
    the last problem of its watched file since this version loaded (`reload_error`)."""
    scenario = loaded.scenario
    described = {
        "name": scenario.name,
        "description": scenario.description,
        "source": None if scenario.source == INLINE else scenario.source,
        "version": scenario.version,
        "loaded_at": format_ts(loaded.loaded_at),
        "reload_error": reload_error,
        "rules": [
            {"name": r.name, "enabled": r.enabled, "matched": r.seen, "fired": r.fired}
            for r in scenario.rules
        ],
        "webhooks": [
            {"name": f.name, "enabled": f.enabled, "fault": f.kind} for f in scenario.webhooks
        ],
        "deprecations": [
            {"name": d.name, "enabled": d.enabled, "path": d.path.text}
            for d in scenario.deprecations
        ],
        "timeline": [
            {"due": format_ts(t.due), "done": done}
            for t, done in zip(loaded.timers, loaded.done, strict=True)
        ],
        "chaos": None if scenario.chaos is None else describe_chaos(scenario.chaos),
    }
    if loaded.warnings:  # match criteria naming what this sandbox lacks: they never fire
        described["warnings"] = [warning.as_json() for warning in loaded.warnings]
    return described
