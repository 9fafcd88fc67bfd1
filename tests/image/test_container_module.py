"""`mockserver.testing.container.MockServerContainer` on the image, through testcontainers.

testcontainers talks to the engine's Docker API: docker's own, or podman's
(`podman system service`, with DOCKER_HOST, TESTCONTAINERS_RYUK_DISABLED=true and
TESTCONTAINERS_CONNECTION_MODE=docker_host, as .ci/container-host sets them).

Needs the runtime contract (`GET /_mock/health`): `start` waits for its 200.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator

import httpx
import pytest

from mockserver.testing.container import MockServerContainer
from tests.image.conftest import IMAGE, engine


@pytest.fixture(scope="module")
def mock() -> Iterator[MockServerContainer]:
    with MockServerContainer(IMAGE) as container:
        yield container


def test_it_waits_for_health_and_publishes_on_loopback(mock: MockServerContainer) -> None:
    assert mock.url.startswith("http://127.0.0.1:")
    assert mock.base_url == f"{mock.url}/v1"
    assert mock.health()["status"] == "ok"
    ports = json.loads(
        engine(
            "inspect", "--format", "{{json .HostConfig.PortBindings}}", mock.get_container_id()
        ).stdout
    )
    assert {binding["HostIp"] for binding in ports["8080/tcp"]} == {"127.0.0.1"}


def test_a_random_admin_token_guards_the_control_plane(mock: MockServerContainer) -> None:
    assert len(mock.admin_token) >= 32
    assert MockServerContainer(IMAGE).admin_token != mock.admin_token
    assert httpx.post(f"{mock.url}/_mock/reset").status_code == 401
    mock.reset()


def test_the_api_and_the_control_helpers(mock: MockServerContainer) -> None:
    mock.reset()
    with mock.client() as api:
        assert api.get("/whoami").json()["account_id"] == "acct_mock_us"
    start = mock.now()
    assert mock.advance(3600) > start
    mock.assert_requested("GET", "/v1/whoami", times=1)
    assert mock.requests(limit=1)[0]["path"] == "/v1/whoami"
    account = mock.new_account(name=f"container-{secrets.token_hex(4)}")
    with mock.client(account["keys"]["full"]) as api:
        assert api.get("/whoami").json()["account_id"] == account["id"]
    assert mock.deliveries() == []
    mock.load_scenario("rate_limit_burst")
    mock.reset()
