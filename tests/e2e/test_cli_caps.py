"""`mockserver run --idempotency-records N` over a real socket: the N newest results are kept."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator

import httpx
import pytest

from tests.support.cli import MOCKSERVER, free_port
from tests.support.keys import auth

CAPPED = ("--idempotency-records", "2")


@pytest.fixture
def capped_server() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [
            *MOCKSERVER,
            "run",
            "--port",
            str(port),
            "--clock",
            "frozen",
            "--idempotency-records",
            "2",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        pause = threading.Event()
        for _ in range(300):
            try:
                httpx.get(f"{base}/v1/openapi.json")
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                pause.wait(0.05)
        yield base
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_run_keeps_the_newest_n_idempotent_results(capped_server: str) -> None:
    with httpx.Client(base_url=capped_server, headers=auth()) as client:

        def create(key: str) -> httpx.Response:
            body = {"title": "Capped", "vault_id": "vault_mock_us"}
            response = client.post("/v1/documents", json=body, headers={"Idempotency-Key": key})
            assert response.status_code == 201, response.text
            return response

        ids = [create(key).json()["id"] for key in ("a", "b", "c")]
        assert create("c").headers["idempotent-replayed"] == "true"
        assert create("b").json()["id"] == ids[1]
        assert create("a").json()["id"] not in ids  # the oldest was dropped: a new document


def test_run_refuses_a_cap_below_one() -> None:
    result = subprocess.run(
        [*MOCKSERVER, "run", "--port", str(free_port()), "--idempotency-records", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--idempotency-records" in result.stderr
