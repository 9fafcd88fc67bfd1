"""The scenario text `mockserver import` writes loads back: a value used twice is written out
twice, never as a YAML alias (which scenario files refuse)."""

from __future__ import annotations

from typing import Any

import pytest

from mockserver.fidelity import importer
from mockserver.scenarios.loader import load_scenario_text


def test_a_shared_value_is_written_out_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    body = {"title": "t", "vault_id": "vault_mock_us"}
    steps = [{"request": {"method": "POST", "path": "/v1/documents", "body": body}}] * 2

    def built(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"name": "shared", "steps": steps}

    monkeypatch.setattr(importer, "build_scenario", built)
    text = importer.scenario_yaml([], name="shared", key="k", source="r.jsonl", seed=None)  # type: ignore[arg-type]
    assert "&" not in text
    assert "*" not in text
    assert len(load_scenario_text(text, "shared.yaml").steps) == 2
