"""Chaos decisions: seeded draws per account and ordinal, latency distributions, webhook chaos,
and what the summary reports."""

from __future__ import annotations

import statistics
import textwrap

import pytest

from mockserver.core.config import Settings
from mockserver.scenarios.chaos import Latency, draw
from mockserver.scenarios.decisions import ChaosHit, Fault
from mockserver.scenarios.engine import RequestView, ScenarioEngine
from mockserver.scenarios.loader import load_scenario_text
from mockserver.web.app import create_app

FLAKY = """
name: flaky
rules:
  - name: explicit
    match: {method: POST, path: /v1/documents, key: sk_explicit}
    respond: {status: 409}
chaos:
  seed: {seed}
  rules:
    - name: flaky-creates
      match: {method: POST, path: /v1/documents}
      probability: 0.3
      respond: {status: 503}
    - match: {method: POST}
      probability: 1
      fault: reset
"""
CREATE = RequestView("POST", "/v1/documents")


def engine_with(text: str) -> ScenarioEngine:
    app = create_app(Settings(clock_mode="frozen"))
    engine: ScenarioEngine = app.state.scenarios
    engine.load(load_scenario_text(textwrap.dedent(text), "t.yaml"))
    return engine


def flaky(seed: int = 7) -> ScenarioEngine:
    return engine_with(FLAKY.replace("{seed}", str(seed)))


def hits(engine: ScenarioEngine, account: str | None, count: int) -> list[int]:
    """The ordinals (1-based) of the requests `flaky-creates` hit among `count` creates."""
    found = []
    for ordinal in range(1, count + 1):
        hit = engine.chaos_decide(CREATE, account)
        assert hit is not None  # the catch-all rule answers what flaky-creates does not
        if hit.rule == "flaky-creates":
            found.append(ordinal)
    return found


def test_a_draw_is_a_pure_function_of_seed_account_label_and_ordinal() -> None:
    value = draw(7, "acct_1", "rules/x", 3)
    assert 0 <= value < 1
    assert draw(7, "acct_1", "rules/x", 3) == value
    others = {draw(8, "acct_1", "rules/x", 3), draw(7, "acct_2", "rules/x", 3)}
    others |= {draw(7, "acct_1", "rules/y", 3), draw(7, "acct_1", "rules/x", 4)}
    assert value not in others
    assert draw(7, None, "rules/x", 1) == draw(7, "", "rules/x", 1)


def test_a_share_of_matching_requests_is_hit() -> None:
    engine = flaky()
    found = hits(engine, "acct_1", 200)
    assert 30 <= len(found) <= 90  # binomial(200, 0.3): 60 +- 6.5
    assert len(found) == len(set(found))
    summary = engine.summary()["data"][0]["chaos"]
    assert summary["seed"] == 7
    assert summary["rules"] == [
        {"name": "flaky-creates", "probability": 0.3, "matched": 200, "hit": len(found)},
        {"name": "1", "probability": 1.0, "matched": 200, "hit": 200 - len(found)},
    ]


def test_the_hit_says_which_rule_scenario_and_draw() -> None:
    engine = flaky()
    answers = [engine.chaos_decide(CREATE, "acct_1") for _ in range(20)]
    first = next(hit for hit in answers if hit is not None and hit.rule == "flaky-creates")
    assert first.scenario == "flaky"
    assert first.respond.status == 503
    assert 0 <= first.draw < 0.3
    catch_all = next(hit for hit in answers if hit is not None and hit.rule == "1")
    assert catch_all.respond.fault == "reset"
    assert catch_all.draw >= 0  # probability 1 hits every draw


def test_the_same_seed_gives_the_same_hits_and_another_seed_others() -> None:
    first = hits(flaky(7), "acct_1", 100)
    assert hits(flaky(7), "acct_1", 100) == first
    assert hits(flaky(8), "acct_1", 100) != first


def test_other_traffic_does_not_move_an_accounts_hits() -> None:
    alone = hits(flaky(), "acct_1", 100)
    engine = flaky()
    found = []
    for ordinal in range(1, 101):
        # another account's creates, and requests no chaos rule matches, in between
        engine.chaos_decide(CREATE, "acct_2")
        engine.chaos_decide(CREATE, None)
        engine.chaos_decide(RequestView("GET", "/v1/documents"), "acct_1")
        hit = engine.chaos_decide(CREATE, "acct_1")
        if hit is not None and hit.rule == "flaky-creates":
            found.append(ordinal)
    assert found == alone
    assert hits(flaky(), "acct_2", 100) != alone  # the account is part of the draw


def test_requests_no_chaos_rule_matches_are_left_alone() -> None:
    engine = flaky()
    assert engine.chaos_decide(RequestView("GET", "/v1/documents"), "acct_1") is None
    assert engine.summary()["data"][0]["chaos"]["rules"][0]["matched"] == 0


def test_chaos_arms_the_engine_and_unloading_disarms_it() -> None:
    engine = engine_with(
        "name: c\nchaos:\n  seed: 1\n  rules:\n    - {probability: 1, fault: reset}\n"
    )
    assert engine.active
    assert not engine.needs_body
    assert engine.chaos_decide(CREATE, None) == ChaosHit(
        "0", "c", draw(1, None, "rules/0", 1), engine.loaded[0].scenario.chaos.rules[0].respond
    )
    engine.unload_all()
    assert not engine.active
    assert engine.chaos_decide(CREATE, None) is None


def test_a_chaos_rule_on_the_body_needs_the_body() -> None:
    engine = engine_with(
        """
        name: c
        chaos:
          seed: 1
          rules:
            - {match: {body: {title: x}}, probability: 1, respond: {status: 500}}
        """
    )
    assert engine.needs_body
    assert engine.chaos_decide(RequestView("POST", "/v1/documents", body={"title": "x"}), None)
    assert engine.chaos_decide(RequestView("POST", "/v1/documents", body={"title": "y"}), None) is (
        None
    )


def latency_engine(distribution: str, median: float, p99: float | None = None) -> ScenarioEngine:
    p99_field = "" if p99 is None else f"p99_ms: {p99}"
    return engine_with(
        f"""
        name: slow
        chaos:
          seed: 3
          latency:
            match: {{method: GET}}
            distribution: {distribution}
            median_ms: {median}
            {p99_field}
        """
    )


def latencies(engine: ScenarioEngine, count: int) -> list[float]:
    found = []
    for _ in range(count):
        answer = engine.chaos_latency(RequestView("GET", "/v1/documents"), "acct_1")
        assert answer is not None
        milliseconds, value = answer
        assert 0 <= value < 1
        found.append(milliseconds)
    return found


def test_lognormal_latency_has_its_median_and_a_long_tail() -> None:
    found = sorted(latencies(latency_engine("lognormal", 20, 200), 2000))
    assert 17 <= statistics.median(found) <= 23
    p99 = found[int(0.99 * len(found))]
    assert 140 <= p99 <= 280
    assert min(found) > 0


def test_uniform_latency_spans_its_range() -> None:
    found = latencies(latency_engine("uniform", 100, 149), 2000)
    # width (149 - 100) / 0.49 = 100: from 50 to 150
    assert 50 <= min(found) < 55
    assert 145 < max(found) <= 150
    assert 90 <= statistics.median(found) <= 110


def test_uniform_latency_is_clamped_at_zero() -> None:
    found = latencies(latency_engine("uniform", 10, 59), 500)
    assert min(found) == 0  # the range is -40 .. 60
    assert max(found) > 50


def test_fixed_latency_is_its_median() -> None:
    assert set(latencies(latency_engine("fixed", 12.5), 50)) == {12.5}


def test_latency_is_capped_and_only_for_matching_requests() -> None:
    engine = latency_engine("lognormal", 20000, 30000)
    assert max(latencies(engine, 500)) == 30000
    assert engine.chaos_latency(RequestView("POST", "/v1/documents"), None) is None
    assert engine.summary()["data"][0]["chaos"]["latency"]["matched"] == 500


@pytest.mark.parametrize(
    ("u", "expected"),
    [(0.5, 20.0), (0.99, 200.0)],
)
def test_the_lognormal_quantiles_are_the_median_and_p99(u: float, expected: float) -> None:
    latency = Latency(distribution="lognormal", median_ms=20, p99_ms=200)
    assert latency.quantile(u) == pytest.approx(expected)


def test_a_zero_median_is_no_latency() -> None:
    latency = Latency(distribution="lognormal", median_ms=0, p99_ms=100)
    assert latency.quantile(0.999) == 0


WEBHOOK_CHAOS = """
name: receivers
webhooks:
  - {name: down, endpoint: whk_down, fault: fail, status: 503}
chaos:
  seed: 11
  webhooks:
    - name: flaky-receiver
      event: document.*
      probability: 0.5
      fault: fail
      status: 502
    - endpoint: whk_slow
      probability: 1
      fault: delay
      delay_seconds: 30
"""


def webhook_hits(engine: ScenarioEngine, account: str, count: int) -> list[int]:
    found = []
    for ordinal in range(1, count + 1):
        fault = engine.webhook_fault("whk_a", "document.created", 1, account)
        if fault is not None:
            assert fault.kind == "fail"
            assert fault.rule == "flaky-receiver"
            assert fault.status == 502
            assert fault.draw is not None
            assert fault.draw < 0.5
            found.append(ordinal)
    return found


def test_webhook_chaos_fails_a_share_of_attempts_per_account() -> None:
    engine = engine_with(WEBHOOK_CHAOS)
    alone = webhook_hits(engine, "acct_1", 100)
    assert 25 <= len(alone) <= 75
    engine = engine_with(WEBHOOK_CHAOS)
    found = []
    for ordinal in range(1, 101):
        engine.webhook_fault("whk_a", "document.created", 1, "acct_2")  # another account
        engine.webhook_fault("whk_a", "workflow.advanced", 1, "acct_1")  # no rule matches
        if engine.webhook_fault("whk_a", "document.created", 2, "acct_1") is not None:
            found.append(ordinal)
    assert found == alone
    other = webhook_hits(engine_with(WEBHOOK_CHAOS), "acct_2", 100)
    assert other != alone
    assert engine.summary()["data"][0]["chaos"]["webhooks"][0] == {
        "name": "flaky-receiver",
        "probability": 0.5,
        "matched": 200,
        "hit": len(alone) + len(other),
        "fault": "fail",
    }


def test_explicit_webhook_faults_win_over_chaos() -> None:
    engine = engine_with(WEBHOOK_CHAOS)
    assert engine.webhook_fault("whk_down", "document.created", 1, "a") == Fault(
        "fail", "down", 503, 0
    )
    fault = engine.webhook_fault("whk_slow", "workflow.advanced", 1, "a")
    assert fault is not None
    assert (fault.kind, fault.rule, fault.delay_seconds) == ("delay", "1", 30)
    engine.unload_all()
    assert engine.webhook_fault("whk_slow", "workflow.advanced", 1, "a") is None
