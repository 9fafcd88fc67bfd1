"""The shipped Grafana dashboard (`contrib/grafana/mockserver.json`) asks only for metrics the
server exports: every PromQL expression's series names are read off a real exposition (no
Grafana schema checker installs from PyPI or npm, so the check is by name and shape)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app

DASHBOARD = Path(__file__).resolve().parents[2] / "contrib" / "grafana" / "mockserver.json"
SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "gauge": ("",),
}
# A series name in PromQL: a name of ours or the process collector's, outside label matchers.
SERIES = re.compile(r"\b((?:mockserver|process)_[a-zA-Z0-9_]*)")
WANTED = (  # what the dashboard must show
    "mockserver_requests_total",
    "mockserver_request_duration_seconds_bucket",
    "mockserver_scenario_hits_total",
    "mockserver_chaos_hits_total",
    "mockserver_rate_limited_total",
    "mockserver_webhook_attempts_total",
    "mockserver_webhook_pending",
)


def exported() -> set[str]:
    """Every series name the server's exposition has, by family type."""
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app) as client:
        text = client.get("/_mock/metrics").text
    names = set()
    for family in text_string_to_metric_families(text):
        base = family.name
        for suffix in SUFFIXES.get(family.type, ("",)):
            names.add(base + suffix)
    return names


def panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for panel in dashboard["panels"]:
        found.append(panel)
        found += panel.get("panels", [])
    return found


def expressions(dashboard: dict[str, Any]) -> list[str]:
    exprs = [t["expr"] for p in panels(dashboard) for t in p.get("targets", [])]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            exprs.append(variable["query"]["query"])
    return exprs


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def test_every_expression_names_only_exported_metrics(dashboard: dict[str, Any]) -> None:
    names = exported()
    used: set[str] = set()
    for expr in expressions(dashboard):
        without_matchers = re.sub(r'\{[^}]*\}|"[^"]*"', "", expr)
        found = set(SERIES.findall(without_matchers))
        assert found, f"names no metric: {expr}"
        assert found <= names, f"{sorted(found - names)} not exported, in: {expr}"
        used |= found
    assert set(WANTED) <= used


def test_the_dashboard_has_the_shape_grafana_loads(dashboard: dict[str, Any]) -> None:
    assert dashboard["uid"] == "mockserver"
    assert isinstance(dashboard["schemaVersion"], int)
    ids = [panel["id"] for panel in panels(dashboard)]
    assert len(ids) == len(set(ids))
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    for panel in panels(dashboard):
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24
        if panel["type"] == "row":
            continue
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        refs = [target["refId"] for target in panel["targets"]]
        assert refs
        assert len(refs) == len(set(refs))
        for target in panel["targets"]:
            for name in re.findall(r"\$(\w+)", target["expr"]):
                assert name in variables or name.startswith("__"), name
