"""The scenario schema as a file for editors: equal to `mockserver schema scenario`, and named
by the `# yaml-language-server: $schema=...` line at the top of every shipped scenario."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from mockserver.scenarios.loader import _Loader, load_scenario
from mockserver.scenarios.schema import SCENARIO_SCHEMA
from mockserver.seeds.yaml_lines import yaml_load
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


DRAFT7_SAME = {  # keywords draft 7 reads as 2020-12 does: what editors implement
    *("$id", "$schema", "title", "description", "type", "enum", "const", "format", "not"),
    *("properties", "additionalProperties", "required", "minProperties", "maxProperties"),
    *("items", "minItems", "oneOf", "pattern", "minLength", "minimum", "maximum"),
    "exclusiveMinimum",
}


def _keywords(node: object) -> set[str]:
    if isinstance(node, list):
        return {k for item in node for k in _keywords(item)}
    if not isinstance(node, dict):
        return set()
    found = {k for k in node if not k.startswith("x-")}
    for name, value in node.items():
        children = value.values() if name == "properties" else [value]
        for child in children:
            found |= _keywords(child)
    return found


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_an_editor_on_draft_7_checks_the_same(path: Path) -> None:
    """The YAML extension and JetBrains IDEs validate with JSON Schema draft 7: the schema
    uses only keywords draft 7 reads the same way, and every shipped scenario passes it."""
    assert _keywords(SCENARIO_SCHEMA) <= DRAFT7_SAME
    draft7 = {k: v for k, v in SCENARIO_SCHEMA.items() if k != "$schema"}
    jsonschema.Draft7Validator.check_schema(draft7)
    value = yaml_load(path.read_text("utf-8"), _Loader)
    assert list(jsonschema.Draft7Validator(draft7).iter_errors(value)) == []
