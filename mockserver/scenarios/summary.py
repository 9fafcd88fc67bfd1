"""What `GET /_mock/scenarios` shows of one loaded scenario: its rules with their counters,
webhook faults, deprecations, timeline and chaos."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mockserver.core.clock import format_ts
from mockserver.core.scheduler import Timer
from mockserver.scenarios.chaos import describe as describe_chaos

if TYPE_CHECKING:
    from mockserver.scenarios.model import Scenario
    from mockserver.scenarios.reach import Problem


class Loaded(Protocol):
    """What is shown of a loaded scenario (`engine.Loaded`): the scenario, when it was
    loaded, its timeline's timers and which of them ran."""

    scenario: Scenario
    loaded_at: int
    timers: list[Timer]
    done: list[bool]
    warnings: list[Problem]


def describe(loaded: Loaded) -> dict[str, Any]:
    scenario = loaded.scenario
    described = {
        "name": scenario.name,
        "description": scenario.description,
        "source": scenario.source,
        "loaded_at": format_ts(loaded.loaded_at),
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
