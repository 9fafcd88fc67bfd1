"""`GET /_mock/health`: 200 `{"status": "ok", "version": V}` for health checks, whatever guards
the control plane (an admin token, the browser guard, `--no-admin`), and changing nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

import mockserver
from mockserver import Request, Sandbox
from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import auth

HEALTHY = {"status": "ok", "version": mockserver.__version__}


@pytest.fixture(
    params=[
        Settings(clock_mode="frozen"),
        Settings(clock_mode="frozen", admin_token="s3cret"),
        Settings(clock_mode="frozen", admin=False),
    ],
    ids=["open", "admin-token", "no-admin"],
)
def client(request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
    with inprocess_client(create_app(request.param)) as client:
        yield client


def test_health_answers_without_the_admin_token(client: httpx.Client) -> None:
    response = client.get("/_mock/health")
    assert response.status_code == 200
    assert response.json() == HEALTHY
    assert response.headers["content-type"] == "application/json"
    assert response.headers["cache-control"] == "no-store"
    assert "x-request-id" not in response.headers  # no request id drawn


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "https://evil.example"}, {"Host": "10.0.0.5:8080"}, {"Host": "mock.internal"}],
)
def test_health_answers_through_the_browser_guard(
    client: httpx.Client, headers: dict[str, str]
) -> None:
    """A container's health check sends the Host it was given (an IP, a service name)."""
    response = client.get("/_mock/health", headers=headers)
    assert (response.status_code, response.json()) == (200, HEALTHY)


def test_a_head_request_is_a_health_check_too(client: httpx.Client) -> None:
    assert client.head("/_mock/health").status_code == 200


def test_health_changes_nothing() -> None:
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app, headers=auth()) as client:
        client.get("/v1/whoami")
        for _ in range(3):
            assert client.get("/_mock/health").status_code == 200
        journal = client.get("/_mock/requests").json()["data"]
        assert [entry["path"] for entry in journal] == ["/v1/whoami"]


def test_other_methods_and_paths_are_not_health_checks(client: httpx.Client) -> None:
    assert client.post("/_mock/health").status_code == 404
    assert client.get("/_mock/health/").status_code == 404


def test_the_sandbox_answers_it_in_process() -> None:
    sandbox = Sandbox.build(Settings(clock_mode="frozen", admin_token="s3cret"))
    response = asyncio.run(sandbox.handle(Request("GET", "/_mock/health")))
    assert (response.status, response.json()) == (200, HEALTHY)
