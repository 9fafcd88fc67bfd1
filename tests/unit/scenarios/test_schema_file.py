"""The scenario schema as a file for editors: equal to `mockserver schema scenario`, and named
by the `# yaml-language-server: $schema=...` line at the top of every shipped scenario."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from mockserver.scenarios.loader import load_scenario
from mockserver.scenarios.schema import SCENARIO_SCHEMA
from tests.support.build import ROOT

SCHEMA_FILE = ROOT / "schemas" / "scenario.schema.json"
SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml"))
MODELINE = "# yaml-language-server: $schema="


def test_schema_file_is_what_the_command_prints() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "mockserver", "schema", "scenario"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=60,
    ).stdout
    assert SCHEMA_FILE.read_text("utf-8") == printed
    assert json.loads(printed) == SCENARIO_SCHEMA
    jsonschema.Draft202012Validator.check_schema(SCENARIO_SCHEMA)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenario_names_the_schema_and_loads(path: Path) -> None:
    first = path.read_text("utf-8").splitlines()[0]
    assert first.startswith(MODELINE), first
    target = (path.parent / first.removeprefix(MODELINE)).resolve()
    assert target == SCHEMA_FILE.resolve()
    load_scenario(path)


def test_there_are_shipped_scenarios() -> None:
    assert len(SHIPPED) >= 3
