"""Checks and calls any API test makes: the error envelope, and a move of the mock clock."""

from __future__ import annotations

import httpx


def assert_envelope(response: httpx.Response, status: int, type_: str) -> dict[str, str]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error["type"] == type_
    assert error["message"]
    assert error["request_id"].startswith("req_")
    assert error["request_id"] == response.headers["x-request-id"]
    return error  # type: ignore[no-any-return]


def clock_advance(client: httpx.Client, seconds: float) -> None:
    assert client.post("/_mock/clock/advance", json={"seconds": seconds}).status_code == 200
