"""The shipped scenarios: each validates, replays green, and replays identically twice."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from mockserver.cli.main import main
from mockserver.core.shipped import data_dir
from mockserver.scenarios.loader import load_scenario
from mockserver.scenarios.schema import SCENARIO_SCHEMA

SHIPPED = sorted(data_dir("scenarios").glob("*.yaml"))
REQUIRED = {"legal_hold", "rate_limit_burst", "webhook_failures"}


def test_the_required_scenarios_and_three_more_ship() -> None:
    names = {path.stem for path in SHIPPED}
    assert names >= REQUIRED
    assert len(names - REQUIRED) >= 3


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_scenario_replays_green_and_identically(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(path)]) == 0
    first = capsys.readouterr().out
    lines = first.splitlines()
    steps = len(load_scenario(path).steps)
    assert steps > 0
    assert len(lines) == steps + 1
    assert all(line.startswith("ok ") for line in lines[:-1]), first
    assert lines[-1] == f"{steps} passed, 0 failed"
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out == first


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_scenario_is_valid_against_the_published_schema(path: Path) -> None:
    # An independent check: the plain YAML (timestamps quoted or not) against the schema.
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor(
        "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
    )
    document = yaml.load(path.read_text(), Loader=Loader)
    jsonschema.validate(document, SCENARIO_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert document["name"] == path.stem
    assert document["description"]


def test_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "scenario"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == SCENARIO_SCHEMA
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(printed)


def test_validate_accepts_every_shipped_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", *map(str, SHIPPED)]) == 0
    out = capsys.readouterr().out
    assert out.count("ok (scenario)") == len(SHIPPED)
