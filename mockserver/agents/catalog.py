"""Every tool, in the order a client lists them, and the resources: the shipped scenarios
(`mockserver://scenarios/{name}`) and the scenario format reference
(`mockserver://docs/scenario-format`), so an agent can write a scenario `scenario_load`
accepts."""

from __future__ import annotations

import json
from pathlib import Path

from mockserver.agents import control_tools, traffic_tools
from mockserver.agents.tools import Tool
from mockserver.core.shipped import data_dir
from mockserver.scenarios.files import shipped_names, shipped_scenario
from mockserver.scenarios.schema import SCENARIO_SCHEMA

ORDER = (
    "status",
    "api_request",
    "reset",
    "clock_advance",
    "clock_set",
    "scenario_load",
    "scenario_unload",
    "scenarios_list",
    "requests_list",
    "request_explain",
    "requests_verify",
    "snapshot_save",
    "snapshot_restore",
    "snapshots_list",
    "account_create",
    "account_delete",
    "accounts_list",
    "deliveries_list",
    "delivery_redeliver",
    "event_trigger",
    "legal_hold",
)
_BY_NAME = {tool.name: tool for tool in [*control_tools.TOOLS, *traffic_tools.TOOLS]}
TOOLS: list[Tool] = [_BY_NAME[name] for name in ORDER]
TOOL = {tool.name: tool for tool in TOOLS}

SCENARIO_URI = "mockserver://scenarios/"
FORMAT_URI = "mockserver://docs/scenario-format"


def shipped_scenarios() -> dict[str, Path]:
    """The shipped scenario files by name, as `run --scenario NAME` finds them."""
    folder = data_dir("scenarios")
    found = {name: shipped_scenario(name, folder) for name in shipped_names(folder)}
    return {name: path for name, path in found.items() if path is not None}


def scenario_format() -> str:
    """The scenario format reference, then the JSON Schema scenario files are checked
    against."""
    reference = data_dir("docs") / "reference" / "scenario-format.md"
    text = reference.read_text(encoding="utf-8") if reference.is_file() else ""
    schema = json.dumps(SCENARIO_SCHEMA, indent=2)
    return f"{text}\n\n## The JSON Schema of a scenario file\n\n```json\n{schema}\n```\n"
