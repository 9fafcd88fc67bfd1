"""Scenario chaos through HTTP: a seeded share of matching requests answered by a chaos rule,
the same every run and per account, marked in the journal and counted in the summary."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.api import assert_envelope
from tests.support.keys import EU, auth
from tests.support.scenarios import create_doc, load

CHAOS = """
name: chaotic
rules:
  - name: explicit
    match: {method: POST, path: /v1/documents, headers: {X-Test-Case: explicit}}
    respond: {status: 409}
chaos:
  seed: 7
  rules:
    - name: flaky-creates
      match: {method: POST, path: /v1/documents}
      probability: 0.3
      respond: {status: 503}
"""


def create_eu(client: httpx.Client) -> httpx.Response:
    return client.post(
        "/v1/documents", json={"title": "t", "vault_id": "vault_mock_eu"}, headers=auth(EU)
    )


def journal(client: httpx.Client) -> list[dict[str, Any]]:
    """The journal's entries, oldest first."""
    response = client.get("/_mock/requests", params={"limit": 1000})
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()["data"]
    return sorted(data, key=lambda entry: int(entry["seq"]))


def chaos_summary(client: httpx.Client) -> dict[str, Any]:
    summary: dict[str, Any] = client.get("/_mock/scenarios").json()["data"][0]["chaos"]
    return summary


def statuses(client: httpx.Client, count: int, *, interleave: bool = False) -> list[int]:
    found = []
    for _ in range(count):
        if interleave:  # another account's creates and unmatched requests in between
            create_eu(client)
            client.get("/v1/documents")
        found.append(create_doc(client).status_code)
    return found


def test_a_share_of_matching_requests_is_answered_by_the_chaos_rule(api: httpx.Client) -> None:
    load(api, CHAOS)
    answered = statuses(api, 200)
    assert set(answered) == {201, 503}
    hit = answered.count(503)
    assert 35 <= hit <= 85  # binomial(200, 0.3): 60 +- 6.5, so within 3.9 standard deviations
    rule = chaos_summary(api)["rules"][0]
    assert (rule["name"], rule["matched"], rule["hit"]) == ("flaky-creates", 200, hit)


def test_the_journal_marks_each_hit_with_its_rule_and_draw(api: httpx.Client) -> None:
    load(api, CHAOS)
    statuses(api, 40)
    creates = [entry for entry in journal(api) if entry["method"] == "POST"]
    assert len(creates) == 40
    for entry in creates:
        if entry["status"] == 503:
            assert entry["chaos"]["rule"] == "flaky-creates"
            assert 0 <= entry["chaos"]["draw"] < 0.3
        else:
            assert entry["status"] == 201
            assert entry["chaos"] is None


def test_the_same_seed_gives_the_same_hits_whatever_else_happens(api: httpx.Client) -> None:
    load(api, CHAOS)
    first = statuses(api, 40)
    assert api.post("/_mock/reset").status_code == 200
    load(api, CHAOS)
    assert statuses(api, 40, interleave=True) == first
    assert api.post("/_mock/reset").status_code == 200
    load(api, CHAOS.replace("seed: 7", "seed: 8"))
    assert statuses(api, 40) != first


def test_explicit_rules_win_and_are_not_counted_by_chaos(api: httpx.Client) -> None:
    load(api, CHAOS.replace("probability: 0.3", "probability: 1"))
    assert create_doc(api, **{"X-Test-Case": "explicit"}).status_code == 409
    assert create_doc(api).status_code == 503
    assert chaos_summary(api)["rules"][0]["matched"] == 1


def test_unloading_stops_the_chaos(api: httpx.Client) -> None:
    load(api, CHAOS.replace("probability: 0.3", "probability: 1"))
    assert create_doc(api).status_code == 503
    assert api.delete("/_mock/scenarios").status_code == 200
    assert create_doc(api).status_code == 201


def test_a_bad_chaos_block_is_422_with_every_problem_at_its_line(api: httpx.Client) -> None:
    text = CHAOS.replace("probability: 0.3", "probability: 0").replace(
        "seed: 7", "seed: 7\n  latency: {distribution: uniform, median_ms: 5}"
    )
    response = api.post("/_mock/scenarios", json={"yaml": text, "source": "chaos.yaml"})
    error = assert_envelope(response, 422, "validation_error")
    assert error["message"].splitlines() == [
        "chaos.yaml:9: chaos.latency: a uniform latency needs p99_ms",
        "chaos.yaml:13: chaos.rules[0].probability: must be more than 0",
    ]
    assert api.get("/_mock/scenarios").json()["data"] == []


LATENCY = """
name: slow
chaos:
  seed: 3
  latency:
    match: {path: /v1/whoami}
    distribution: lognormal
    median_ms: 4
    p99_ms: 40
"""


def test_lognormal_latency_has_its_median_and_a_long_tail(api: httpx.Client) -> None:
    load(api, LATENCY)
    for _ in range(200):
        assert api.get("/v1/whoami").status_code == 200
    api.get("/v1/documents")  # matched by no latency: not marked
    entries = journal(api)
    assert entries[-1]["chaos"] is None
    marks = [entry["chaos"] for entry in entries[:-1]]
    waits = sorted(mark["latency_ms"] for mark in marks)
    assert all(mark["rule"] is None and 0 <= mark["latency_draw"] < 1 for mark in marks)
    median = waits[len(waits) // 2]
    assert 3 <= median <= 5.5  # lognormal median 4 ms, from 200 draws
    assert waits[-1] > 3 * median  # the tail: the slowest of 200 is far above the median
    for entry in entries[:-1]:  # each request waited at least its draw (wall time)
        assert entry["duration_ms"] >= entry["chaos"]["latency_ms"] * 0.99


FAULTY = """
name: faulty
chaos:
  seed: 11
  rules:
    - match: {path: /v1/whoami}
      probability: 0.5
      fault: reset
"""


def test_a_chaos_fault_breaks_the_hit_requests_and_no_others(both: httpx.Client) -> None:
    load(both, FAULTY)
    broken = 0
    for _ in range(30):
        try:
            assert both.get("/v1/whoami").status_code == 200
        except httpx.TransportError:
            broken += 1
    assert 0 < broken < 30
    marks = [(entry["fault"], entry["chaos"]) for entry in journal(both)]
    hits = [chaos for fault, chaos in marks if fault == "reset"]
    assert len(hits) == broken
    assert all(chaos["rule"] == "0" and chaos["draw"] < 0.5 for chaos in hits)  # unnamed: index
    assert all(chaos is None for fault, chaos in marks if fault is None)
