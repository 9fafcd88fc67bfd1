"""Audit exports through HTTP: ask for one, and take it once the clock has completed it."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.api import clock_advance


def create(
    client: httpx.Client, period: str = "2020-01-01/2030-12-31", **extra: Any
) -> dict[str, Any]:
    response = client.post("/v1/audit_logs/export", json={"period": period, **extra})
    assert response.status_code == 202, response.text
    job: dict[str, Any] = response.json()
    return job


def completed(client: httpx.Client, period: str = "2020-01-01/2030-12-31") -> dict[str, Any]:
    job = create(client, period)
    clock_advance(client, 2)
    body: dict[str, Any] = client.get(f"/v1/audit_logs/export/{job['id']}").json()
    return body
