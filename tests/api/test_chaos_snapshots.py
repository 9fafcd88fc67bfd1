"""A snapshot keeps a chaos block's per-account counters: a restored sandbox goes on with the
same draws; a file of a scenario without chaos is as before; bad counters are refused."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from jsonschema import Draft202012Validator
from starlette.applications import Starlette

from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.scenarios.engine import RequestView, ScenarioEngine
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth

CHAOS = """
name: chaotic
chaos:
  seed: 42
  rules:
    - name: flaky-creates
      match: {method: POST, path: /v1/documents}
      probability: 0.4
      respond: {status: 503}
  latency: {distribution: lognormal, median_ms: 20, p99_ms: 200}
  webhooks:
    - {name: flaky-receiver, probability: 0.5, fault: timeout}
"""
CREATE = RequestView("POST", "/v1/documents")


@pytest.fixture
def app() -> Starlette:
    return create_app(Settings(clock_mode="frozen"))


@pytest.fixture
def client(app: Starlette) -> Iterator[httpx.Client]:
    with inprocess_client(app, headers=auth()) as client:
        yield client


def draws(engine: ScenarioEngine, count: int) -> list[tuple[object, ...]]:
    """What the next `count` rounds decide, for two accounts: the chaos rule hit, the latency,
    the webhook fault."""
    found: list[tuple[object, ...]] = []
    for _ in range(count):
        for account in ("acct_a", "acct_b"):
            hit = engine.chaos_decide(CREATE, account)
            latency = engine.chaos_latency(CREATE, account)
            fault = engine.webhook_fault("whk_x", "document.created", 1, account)
            found.append((hit, latency, fault))
    return found


def saved_file(client: httpx.Client, name: str) -> dict[str, Any]:
    assert client.post("/_mock/snapshots", json={"name": name}).status_code == 201
    parsed: dict[str, Any] = orjson.loads(client.get(f"/_mock/snapshots/{name}/download").content)
    return parsed


def scenario_records(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [loaded["scenario"] for loaded in data["state"]["scenarios"]["loaded"]]


def test_a_restore_continues_the_same_draws(app: Starlette, client: httpx.Client) -> None:
    assert client.post("/_mock/scenarios", json={"yaml": CHAOS}).status_code == 201
    engine: ScenarioEngine = app.state.scenarios
    draws(engine, 30)
    assert client.post("/_mock/snapshots", json={"name": "mid"}).status_code == 201
    after = draws(engine, 30)
    assert client.post("/_mock/snapshots/mid/restore").status_code == 200
    assert draws(engine, 30) == after
    summary = client.get("/_mock/scenarios").json()["data"][0]["chaos"]
    assert summary["rules"][0]["matched"] == 120
    assert summary["latency"]["matched"] == 120
    assert summary["webhooks"][0]["matched"] == 120


def test_the_file_holds_the_counters_per_account(app: Starlette, client: httpx.Client) -> None:
    client.post("/_mock/scenarios", json={"yaml": CHAOS})
    engine: ScenarioEngine = app.state.scenarios
    decided = draws(engine, 10)
    record = scenario_records(saved_file(client, "counted"))[0]
    hits_a = sum(hit is not None for hit, _, _ in decided[0::2])
    hits_b = sum(hit is not None for hit, _, _ in decided[1::2])
    assert record["chaos"]["rules"] == [{"acct_a": [10, hits_a], "acct_b": [10, hits_b]}]
    assert record["chaos"]["latency"] == {"acct_a": 10, "acct_b": 10}


def test_a_scenario_without_chaos_is_saved_as_before(client: httpx.Client) -> None:
    client.post("/_mock/scenarios", json={"name": "flaky_documents"})
    record = scenario_records(saved_file(client, "calm"))[0]
    assert set(record) == {"source", "text", "rules", "webhooks", "deprecations"}


def test_the_published_schema_describes_chaos_counters(
    client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    client.post("/_mock/scenarios", json={"yaml": CHAOS})
    data = saved_file(client, "schema")
    assert main(["schema", "snapshot"]) == 0
    Draft202012Validator(orjson.loads(capsys.readouterr().out)).validate(data)


def _upload(client: httpx.Client, data: dict[str, Any]) -> httpx.Response:
    data = {key: value for key, value in data.items() if key != "sha256"}
    return client.post(
        "/_mock/snapshots/upload", params={"name": "edited"}, content=orjson.dumps(data)
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda chaos: chaos["rules"].clear(), "counters for each chaos rule"),
        (lambda chaos: chaos.update(latency=None), "counters for each chaos rule"),
        (lambda chaos: chaos["rules"][0].update(acct_a=[1, 2]), "hit more requests than"),
        (lambda chaos: chaos["rules"][0].update(acct_a=[-1, 0]), "whole number"),
        (lambda chaos: chaos.pop("webhooks"), "must be an object of rules, latency, webhooks"),
    ],
)
def test_bad_chaos_counters_are_refused(client: httpx.Client, edit: Any, message: str) -> None:
    client.post("/_mock/scenarios", json={"yaml": CHAOS})
    client.post("/v1/documents", json={"title": "x", "vault_id": "vault_mock_us"})
    data = saved_file(client, "good")
    counters = copy.deepcopy(scenario_records(data)[0]["chaos"])
    counters["rules"][0].setdefault("acct_a", [0, 0])
    edit(counters)
    scenario_records(data)[0]["chaos"] = counters
    error = assert_envelope(_upload(client, data), 422, "validation_error")
    assert message in error["message"], error["message"]


def test_chaos_counters_on_a_scenario_without_chaos_are_refused(client: httpx.Client) -> None:
    client.post("/_mock/scenarios", json={"name": "flaky_documents"})
    data = saved_file(client, "calm")
    scenario_records(data)[0]["chaos"] = {"rules": [], "latency": None, "webhooks": []}
    error = assert_envelope(_upload(client, data), 422, "validation_error")
    assert "chaos counters exactly when its text has a chaos block" in error["message"]
