"""Metadata keys outside the Basic Multilingual Plane are refused; any other key is taken."""

from __future__ import annotations

import httpx
import pytest


@pytest.mark.parametrize("key", ["kind", "clé", "\uffff", "日本"])
def test_keys_in_the_plane_are_taken(api: httpx.Client, key: str) -> None:
    body = {"title": "t", "vault_id": "vault_mock_us", "metadata": {key: "v"}}
    answer = api.post("/v1/documents", json=body)
    assert answer.status_code == 201
    assert answer.json()["metadata"] == {key: "v"}


@pytest.mark.parametrize("key", ["\U00010000", "a\U0001f600", "é\U0010ffff"])
def test_keys_beyond_it_are_refused(api: httpx.Client, key: str) -> None:
    body = {"title": "t", "vault_id": "vault_mock_us", "metadata": {key: "v"}}
    answer = api.post("/v1/documents", json=body)
    assert answer.status_code == 422
    assert answer.json()["error"]["param"] == f"metadata.{key}"
