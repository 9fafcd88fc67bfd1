"""The `chaos:` block of a scenario file: what loads, and each bad field reported at its line."""

from __future__ import annotations

import pytest

from mockserver.core.errors import ScenarioError
from mockserver.scenarios.loader import load_scenario_text, read_scenario_text

GOOD = """\
name: chaotic
rules:
  - name: boom
    respond: {status: 500}
chaos:
  seed: 7
  rules:
    - name: flaky-creates
      match: {method: POST, path: /v1/documents}
      probability: 0.3
      respond: {status: 503}
    - match: {method: GET}
      probability: 0.1
      fault: slow_body
      bytes_per_second: 500
  latency:
    match: {method: GET}
    distribution: lognormal
    median_ms: 20
    p99_ms: 200
  webhooks:
    - name: flaky-receiver
      event: document.*
      probability: 0.5
      fault: fail
      status: 502
    - probability: 0.25
      fault: delay
      delay_seconds: 30
"""


def error_of(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_scenario_text(text, "bad.yaml")
    return caught.value


def test_the_chaos_block_loads() -> None:
    chaos = load_scenario_text(GOOD, "good.yaml").chaos
    assert chaos is not None
    assert chaos.seed == 7
    first, second = chaos.rules
    assert (first.label, first.probability, first.respond.status) == ("flaky-creates", 0.3, 503)
    assert first.match.methods == frozenset({"POST"})
    # `fault:` beside the rule is short for a respond with that fault and its parameter
    assert (second.label, second.respond.fault, second.respond.bytes_per_second) == (
        "1",
        "slow_body",
        500,
    )
    assert second.respond.status is None
    assert chaos.latency is not None
    assert (chaos.latency.distribution, chaos.latency.median_ms, chaos.latency.p99_ms) == (
        "lognormal",
        20,
        200,
    )
    receiver, delayed = chaos.webhooks
    assert (receiver.label, receiver.kind, receiver.status, receiver.event) == (
        "flaky-receiver",
        "fail",
        502,
        "document.*",
    )
    assert (delayed.label, delayed.kind, delayed.delay_seconds) == ("1", "delay", 30)


def test_a_scenario_without_chaos_has_none() -> None:
    assert load_scenario_text("name: calm\n", "calm.yaml").chaos is None


def test_a_fixed_latency_needs_only_its_median() -> None:
    text = "name: x\nchaos:\n  seed: 1\n  latency: {distribution: fixed, median_ms: 5}\n"
    chaos = load_scenario_text(text, "x.yaml").chaos
    assert chaos is not None
    assert chaos.latency is not None
    assert chaos.latency.quantile(0.99) == 5


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        # the schema
        ("  seed: 7\n", "", 5, "chaos: missing required field 'seed'"),
        ("  seed: 7", "  seed: seven", 6, "chaos.seed: must be a whole number"),
        ("  seed: 7", "  seed: -1", 6, "chaos.seed: must be at least 0"),
        ("  seed: 7", "  sede: 7", 5, "chaos.sede: unknown field 'sede' (did you mean 'seed'?)"),
        ("probability: 0.3", "probability: 0", 10, "probability: must be more than 0"),
        ("probability: 0.3", "probability: 1.5", 10, "probability: must be at most 1"),
        ("probability: 0.3", "probability: often", 10, "probability: must be a number"),
        ("      probability: 0.3\n", "", 8, "chaos.rules[0]: missing required field 'probability'"),
        ("name: flaky-creates", "name: Flaky", 8, "chaos.rules[0].name: must be 1-64 lowercase"),
        (
            "{method: POST, path: /v1/documents}",
            "{method: POST, nth: 2}",
            9,
            "chaos.rules[0].match.nth: chaos draws by probability: nth does not apply",
        ),
        (
            "{method: GET}\n      probability: 0.1",
            "{method: GET, times: 3}\n      probability: 0.1",
            12,
            "times does not apply",
        ),
        (
            "respond: {status: 503}",
            "respond: {rate_limit_burst: {seconds: 5}}",
            11,
            "a chaos rule cannot start a rate_limit_burst",
        ),
        ("fault: slow_body", "fault: explode", 14, "chaos.rules[1].fault: must be one of: reset"),
        ("distribution: lognormal", "distribution: normal", 18, "must be one of: fixed, uniform"),
        ("median_ms: 20", "median_ms: -3", 19, "chaos.latency.median_ms: must be at least 0"),
        ("p99_ms: 200", "p99_ms: 40000", 20, "chaos.latency.p99_ms: must be at most 30000"),
        ("    median_ms: 20\n", "", 16, "chaos.latency: missing required field 'median_ms'"),
        ("      fault: fail\n", "      fault: duplicate\n", 25, "must be one of: fail, timeout"),
        ("      probability: 0.5", "      probability: 0", 24, "must be more than 0"),
        ("      event: document.*", "      endpoint: nope", 23, "must be an id like whk_"),
        # past the schema
        (
            "      respond: {status: 503}",
            "      respond: {status: 503}\n      fault: reset",
            8,
            "chaos.rules[0]: a chaos rule needs exactly one of respond or fault",
        ),
        (
            "      respond: {status: 503}",
            "      respond: {status: 503}\n      stall_ms: 5",
            12,
            "chaos.rules[0].stall_ms: stall_ms goes beside fault, or inside respond",
        ),
        (
            "      fault: slow_body\n      bytes_per_second: 500",
            "      fault: slow_body",
            12,
            "chaos.rules[1]: a slow_body fault needs bytes_per_second",
        ),
        (
            "      fault: slow_body\n      bytes_per_second: 500",
            "      fault: reset\n      stall_ms: 500",
            15,
            "chaos.rules[1].stall_ms: stall_ms applies to the stall fault only",
        ),
        (
            "respond: {status: 503}",
            "respond: {fault: reset, status: 503}",
            11,
            "a reset fault sends no answer: it takes no status",
        ),
        (
            "respond: {status: 503}",
            "respond: {error: {message: down}}",
            11,
            "missing required field 'status'",
        ),
        ("name: flaky-creates", "name: boom", 8, "the name 'boom' is already used on line 3"),
        ("name: flaky-receiver", "name: flaky-creates", 22, "already used on line 8"),
        ("    p99_ms: 200\n", "", 16, "chaos.latency: a lognormal latency needs p99_ms"),
        ("p99_ms: 200", "p99_ms: 10", 20, "chaos.latency.p99_ms: p99_ms must be at least median"),
        (
            "distribution: lognormal",
            "distribution: fixed",
            20,
            "a fixed latency is median_ms every time: it has no p99_ms",
        ),
        ("      status: 502", "      status: 200", 26, "a failed delivery answers 400 to 599"),
        ("      fault: fail", "      fault: timeout", 26, "status applies to the fail fault only"),
        ("      delay_seconds: 30\n", "", 27, "a delay fault needs delay_seconds"),
        (
            "    respond: {status: 500}",
            "    respond: {status: 500}\ntimeline:\n  - after: 1\n"
            "    do: [{disable: flaky-creates}]",
            7,
            "'flaky-creates' is a chaos rule, which is not turned on and off",
        ),
    ],
)
def test_bad_chaos_fields_are_reported_at_their_line(
    old: str, new: str, line: int, message: str
) -> None:
    assert old in GOOD
    error = error_of(GOOD.replace(old, new, 1))
    assert message in str(error), str(error)
    assert error.line == line, str(error)


def test_every_bad_chaos_part_is_reported_and_the_good_ones_kept() -> None:
    text = (
        GOOD.replace("probability: 0.3", "probability: 2")
        .replace("p99_ms: 200", "p99_ms: 1")
        .replace("      status: 502", "      status: 200")
    )
    scenario, problems = read_scenario_text(text, "bad.yaml")
    assert [problem.line for problem in problems] == [10, 20, 26]
    assert scenario.chaos is not None
    assert [rule.label for rule in scenario.chaos.rules] == ["1"]  # rule 0 is refused
    assert scenario.chaos.latency is None
    assert [rule.label for rule in scenario.chaos.webhooks] == ["1"]
