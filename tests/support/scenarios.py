"""Helpers for scenario tests: load inline YAML through the control plane."""

from __future__ import annotations

import textwrap
from typing import Any

import httpx


def load(client: httpx.Client, yaml_text: str) -> dict[str, Any]:
    """Load a scenario given as (indented) inline YAML; it must be accepted."""
    response = client.post("/_mock/scenarios", json={"yaml": textwrap.dedent(yaml_text)})
    assert response.status_code == 201, response.text
    loaded: dict[str, Any] = response.json()
    return loaded


def create_doc(client: httpx.Client, title: str = "t", **headers: str) -> httpx.Response:
    return client.post(
        "/v1/documents", json={"title": title, "vault_id": "vault_mock_us"}, headers=headers
    )
