"""Transport faults as a consumer's suite meets them: its retry logic tested in-process with
`mock_client` (httpx errors, no socket) and over a socket with `mock_server`."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

SCENARIO = """
name: lossy
rules:
  - name: first-whoami-reset
    match: {path: /v1/whoami, times: 1}
    respond: {fault: reset}
  - name: lost-create
    match: {method: POST, path: /v1/documents, times: 1}
    respond: {fault: drop_after_commit}
"""

CONSUMER = """
import httpx
import pytest


def with_retries(send, attempts=3):
    # The consumer's own retry logic under test: retry transport errors only.
    for attempt in range(attempts):
        try:
            return send()
        except httpx.TransportError:
            if attempt == attempts - 1:
                raise


@pytest.mark.mock_scenario("lossy.yaml")
def test_in_process_a_reset_is_a_transport_error_then_the_next_is_answered(mock_client):
    with pytest.raises(httpx.TransportError):
        mock_client.get("/v1/whoami")
    assert mock_client.get("/v1/whoami").status_code == 200


@pytest.mark.mock_scenario("lossy.yaml")
def test_in_process_a_lost_create_retried_with_its_key_is_created_once(mock_client):
    body = {"title": "contract", "vault_id": "vault_mock_us"}
    headers = {"Idempotency-Key": "create-contract-1"}
    created = with_retries(lambda: mock_client.post("/v1/documents", json=body, headers=headers))
    assert created.status_code == 201
    assert created.headers["Idempotent-Replayed"] == "true"
    listed = mock_client.get("/v1/documents", params={"vault_id": "vault_mock_us"}).json()
    assert [d["id"] for d in listed["data"] if d["title"] == "contract"] == [created.json()["id"]]


@pytest.mark.mock_scenario("lossy.yaml")
def test_over_a_socket_the_same(mock_server):
    with mock_server.client() as client:
        with pytest.raises(httpx.ReadError):
            client.get("/v1/whoami")
        assert client.get("/v1/whoami").status_code == 200
    entries = mock_server.requests(method="GET")
    assert [(e["fault"], e["committed"]) for e in entries] == [(None, None), ("reset", False)]
"""


def test_a_consumer_suite_tests_its_retries(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", lossy=SCENARIO)
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=3)
