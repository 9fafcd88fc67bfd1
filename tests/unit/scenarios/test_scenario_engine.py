"""The engine's plain-value questions, for the layers that wire them in: webhook faults,
forced rate limits, path patterns and body subsets; and the clock section."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mockserver.core.config import Settings
from mockserver.domain.store import Store
from mockserver.scenarios.decisions import Fault, ForcedLimit
from mockserver.scenarios.engine import ScenarioEngine
from mockserver.scenarios.loader import load_scenario_text
from mockserver.scenarios.matching import PathPattern, contains, first_difference
from mockserver.web.app import create_app

FAULTS = """
name: faults
webhooks:
  - {name: down, endpoint: whk_a, fault: fail, status: 503, attempts: 2}
  - {name: picky, endpoint: whk_b, attempts: [1, 3], fault: timeout}
  - {name: locks, event: "document.*", fault: delay, delay_seconds: 120}
  - {name: dup, event: signature.completed, fault: duplicate}
  - {name: off, enabled: false, fault: fail}
timeline:
  - after: 3600
    do: [{disable: down}]
"""


def engine_with(text: str) -> ScenarioEngine:
    app = create_app(Settings(clock_mode="frozen"))
    engine: ScenarioEngine = app.state.scenarios
    engine.load(load_scenario_text(textwrap.dedent(text), "t.yaml"))
    return engine


def test_webhook_faults() -> None:
    engine = engine_with(FAULTS)
    fault = engine.webhook_fault
    assert fault("whk_a", "workflow.advanced", 1) == Fault("fail", "down", 503, 0)
    assert fault("whk_a", "workflow.advanced", 2) == Fault("fail", "down", 503, 0)
    assert fault("whk_a", "workflow.advanced", 3) is None  # `attempts: 2` = the first two
    assert fault("whk_b", "workflow.advanced", 1) == Fault("timeout", "picky", 500, 0)
    assert fault("whk_b", "workflow.advanced", 2) is None
    assert fault("whk_b", "workflow.advanced", 3) is not None
    assert fault("whk_c", "document.locked", 7) == Fault("delay", "locks", 500, 120)
    assert fault("whk_c", "signature.completed", 1) == Fault("duplicate", "dup", 500, 0)
    assert fault("whk_c", "workflow.advanced", 1) is None  # `off` is disabled
    # the first matching fault wins: `down` comes before `locks`
    assert fault("whk_a", "document.locked", 1) == Fault("fail", "down", 503, 0)
    engine.store.scheduler.advance(3600)
    assert fault("whk_a", "workflow.advanced", 1) is None  # the timeline turned it off
    engine.unload_all()
    assert fault("whk_c", "document.locked", 1) is None


def test_forced_rate_limit_decisions() -> None:
    engine = engine_with(
        """
        name: burst
        rules:
          - name: b
            match: {method: POST, path: /v1/documents, key: k1, nth: 2, times: 3}
            respond: {rate_limit_burst: {seconds: 60}}
        """
    )
    start = engine.store.now()
    version = engine.version_of("burst")  # the forced 429's journal mark names it
    limited = engine.forced_rate_limit
    assert limited("k2", "POST", "/v1/documents") is None
    assert limited("k1", "GET", "/v1/documents") is None
    assert limited("k1", "POST", "/v1/documents") is None  # first match: not yet
    assert limited("k1", "POST", "/v1/documents") == ForcedLimit(
        "b", start + 60, 60, "burst", version
    )
    engine.store.scheduler.advance(45)
    assert limited("k1", "POST", "/v1/documents") == ForcedLimit(
        "b", start + 60, 15, "burst", version
    )
    assert limited("k1", "POST", "/v1/documents") == ForcedLimit(
        "b", start + 60, 15, "burst", version
    )
    assert limited("k1", "POST", "/v1/documents") is None  # times: 3 spent
    assert len(version) == 12


@pytest.mark.parametrize(
    ("pattern", "yes", "no"),
    [
        ("/v1/documents", ["/v1/documents"], ["/v1/documents/", "/v1/documents/x", "/v1/doc"]),
        ("/v1/documents/{id}", ["/v1/documents/a"], ["/v1/documents", "/v1/documents/a/b"]),
        ("/v1/*/x", ["/v1/a/x", "/v1//x"], ["/v1/a/b/x"]),
        ("/v1/doc*", ["/v1/doc", "/v1/documents"], ["/v1/vaults"]),
        ("/v1/**", ["/v1/", "/v1/a/b/c"], ["/v2/a"]),
        ("/v1/**/advance", ["/v1/advance", "/v1/workflows/w/advance"], ["/v1/a/advance/x"]),
        ("/v1/a.b", ["/v1/a.b"], ["/v1/aXb"]),
    ],
)
def test_path_patterns(pattern: str, yes: list[str], no: list[str]) -> None:
    compiled = PathPattern(pattern)
    assert all(compiled.matches(p) for p in yes)
    assert not any(compiled.matches(p) for p in no)


def test_body_subsets() -> None:
    actual = {"a": 1, "b": {"c": [1, {"d": True, "e": 2}]}, "f": None}
    assert contains(actual, {})
    assert contains(actual, {"b": {"c": [1, {"d": True}]}})
    assert contains(actual, {"f": None})
    assert not contains(actual, {"a": True})  # 1 is not true
    assert not contains(actual, {"b": {"c": [1]}})  # lists match whole
    assert not contains(actual, {"g": None})
    assert first_difference(actual, {"b": {"c": [1, {"d": False}]}}) == (
        "body.b.c[1].d is true, expected false"
    )
    assert first_difference(actual, {"x": 1}) == "body.x is missing"


def test_clock_section_freezes_a_real_clock_until_reset() -> None:
    app = create_app(Settings(clock_mode="real", start_time="2026-01-15T09:00:00Z"))
    store: Store = app.state.store
    engine: ScenarioEngine = app.state.scenarios
    engine.load(
        load_scenario_text(
            "name: c\nclock: {freeze: true, set: 2026-02-01T00:00:00Z, advance: 30}\n", "c"
        )
    )
    assert store.clock.mode == "frozen"
    assert store.now() == 1769904030  # 2026-02-01T00:00:30Z, and standing still
    store.reset()
    assert store.clock.mode == "real"


def test_a_clock_set_backwards_runs_nothing(tmp_path: Path) -> None:
    app = create_app(Settings(clock_mode="frozen"))
    engine: ScenarioEngine = app.state.scenarios
    engine.load(load_scenario_text("name: c\nclock: {set: 2025-01-01T00:00:00Z}\n", "c"))
    assert app.state.store.now() == 1735689600
