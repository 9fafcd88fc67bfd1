"""Documents and the workflows that drive them, through HTTP: assignees, create, start, decide."""

from __future__ import annotations

from typing import Any

import httpx

A, B, C = "ann@example.com", "ben@example.com", "cy@example.com"


def new_document(client: httpx.Client, metadata: dict[str, Any] | None = None) -> str:
    body: dict[str, Any] = {"title": "Contract", "vault_id": "vault_mock_us"}
    if metadata is not None:
        body["metadata"] = metadata
    doc_id: str = client.post("/v1/documents", json=body).json()["id"]
    return doc_id


def start(client: httpx.Client, doc_id: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    response = client.post("/v1/workflows", json={"document_id": doc_id, "steps": steps})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def advance(client: httpx.Client, wf_id: str, decision: str, **extra: Any) -> httpx.Response:
    return client.post(f"/v1/workflows/{wf_id}/advance", json={"decision": decision, **extra})
