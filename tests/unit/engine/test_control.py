"""The engine without HTTP: a sandbox is built from settings and steered by its control facade."""

from __future__ import annotations

import asyncio

import pytest

from mockserver.core.clock import parse_ts
from mockserver.core.config import DEFAULT_START_TIME, Settings
from mockserver.core.errors import NotFound, ValidationError
from mockserver.engine.control import TEN_YEARS
from mockserver.engine.sandbox import SandboxState


@pytest.fixture
def sandbox() -> SandboxState:
    return SandboxState.build(Settings(clock_mode="frozen"))


def test_the_clock_moves_forward_and_runs_timers(sandbox: SandboxState) -> None:
    control = sandbox.control
    start = parse_ts(DEFAULT_START_TIME)
    assert control.clock() == (start, "frozen")
    state, _ = asyncio.run(control.advance(400))
    assert state.now == start + 400
    assert state.as_json() == {"now": "2026-01-15T09:06:40Z", "mode": "frozen"}
    # doc_mock_signed was signed before the start: its lock timer has run by now.
    world = sandbox.store.world("acct_mock_us", "sandbox")
    assert world.regions["us"].documents["doc_mock_signed"].status == "locked"


@pytest.mark.parametrize("seconds", [-1, TEN_YEARS + 1])
def test_advance_refuses_what_it_cannot_do(sandbox: SandboxState, seconds: float) -> None:
    with pytest.raises(ValidationError) as refused:
        asyncio.run(sandbox.control.advance(seconds))
    assert refused.value.param == "seconds"
    assert sandbox.control.clock().now == parse_ts(DEFAULT_START_TIME)


def test_setting_the_clock_back_runs_nothing(sandbox: SandboxState) -> None:
    start = parse_ts(DEFAULT_START_TIME)
    state, ran = asyncio.run(sandbox.control.set_clock(start - 3600))
    assert (state.now, ran) == (start - 3600, 0)


def test_legal_hold_and_reset(sandbox: SandboxState) -> None:
    control = sandbox.control
    assert control.legal_hold("doc_mock_draft", True).legal_hold is True
    with pytest.raises(NotFound):
        control.legal_hold("doc_nowhere", True)
    asyncio.run(control.advance(60))
    state = control.reset()
    assert state.now == parse_ts(DEFAULT_START_TIME)
    world = sandbox.store.world("acct_mock_us", "sandbox")
    assert world.regions["us"].documents["doc_mock_draft"].legal_hold is False


def test_scenarios_load_by_name_and_unload(sandbox: SandboxState) -> None:
    control = sandbox.control
    loaded = control.load_scenario("legal_hold")
    assert loaded.scenario.name == "legal_hold"
    assert [s["name"] for s in control.scenarios()["data"]] == ["legal_hold"]
    with pytest.raises(NotFound) as missing:
        control.load_scenario("no_such_scenario")
    assert "legal_hold" in str(missing.value)
    assert control.unload_scenarios() == 1
    assert control.scenarios()["data"] == []


def test_new_accounts_are_isolated(sandbox: SandboxState) -> None:
    made = sandbox.control.new_account("eu", "Team B").made
    assert made.account.default_region == "eu"
    assert made.full.key != made.readonly.key
