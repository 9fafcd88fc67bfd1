"""Helpers for scenario tests: load inline YAML through the control plane."""

from __future__ import annotations

import itertools
import textwrap
from typing import Any

import httpx


def load(client: httpx.Client, yaml_text: str) -> dict[str, Any]:
    """Load a scenario given as (indented) inline YAML; it must be accepted."""
    response = client.post("/_mock/scenarios", json={"yaml": textwrap.dedent(yaml_text)})
    assert response.status_code == 201, response.text
    loaded: dict[str, Any] = response.json()
    return loaded


def alias_bomb(levels: int) -> str:
    """A scenario whose rule answers `/v1/whoami` with nested aliases: `levels` lists of nine
    aliases of the list before, a few hundred bytes that written out are 9**levels strings."""
    names = "abcdefghijklmnopqrstuvwxyz"[:levels]
    lists = "".join(
        f"        {name}: &{name} [{', '.join([f'*{before}'] * 9)}]\n"
        for before, name in itertools.pairwise(names)
    )
    return (
        "name: bomb\nrules:\n  - name: boom\n    match: {path: /v1/whoami}\n    respond:\n"
        "      status: 200\n      body:\n"
        f"        a: &a [{', '.join(['lol'] * 9)}]\n{lists}"
    )


def create_doc(client: httpx.Client, title: str = "t", **headers: str) -> httpx.Response:
    return client.post(
        "/v1/documents", json={"title": title, "vault_id": "vault_mock_us"}, headers=headers
    )
