"""A durable sandbox's metrics count the requests its process answered, never the replay of
its log: a restarted server on the same state directory has all the state and counts from
zero."""

from __future__ import annotations

from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.support.durable import DurableServer


def whoami_count(client: httpx.Client) -> float:
    """`mockserver_requests_total` of `GET /v1/whoami` answered 200, summed over accounts."""
    response = client.get("/_mock/metrics")
    assert response.status_code == 200, response.text
    total = 0.0
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            labels = sample.labels
            if sample.name == "mockserver_requests_total" and labels["route"] == "/v1/whoami":
                assert labels["status"] == "200"
                total += sample.value
    return total


def test_a_restarted_server_has_the_state_and_counts_from_zero(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    try:
        for _ in range(3):
            assert client.get("/v1/whoami").status_code == 200
        made = client.post("/v1/documents", json={"title": "kept", "vault_id": "vault_mock_us"})
        assert made.status_code == 201, made.text
        assert whoami_count(client) == 3
    finally:
        server.stop()
    client = server.start()  # replays the log: three whoami, one create
    try:
        doc_id = made.json()["id"]
        assert client.get(f"/v1/documents/{doc_id}").status_code == 200
        assert whoami_count(client) == 0
        assert client.get("/v1/whoami").status_code == 200
        assert whoami_count(client) == 1
    finally:
        server.stop()
