"""A snapshot downloaded from one `mockserver run` process and uploaded into a second one
answers the same requests with the same bytes."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.testing.receiver import closed_port
from tests.support.cli import MOCKSERVER, free_port
from tests.support.keys import auth


def _serve() -> tuple[subprocess.Popen[str], httpx.Client]:
    port = free_port()
    process = subprocess.Popen(
        [*MOCKSERVER, "run", "--port", str(port), "--clock", "frozen"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth(), timeout=30)
    pause = threading.Event()
    for _ in range(400):
        try:
            client.get("/_mock/clock")
            return process, client
        except httpx.TransportError:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            pause.wait(0.05)
    raise AssertionError("the server did not start")


@pytest.fixture
def two_servers() -> Iterator[tuple[httpx.Client, httpx.Client]]:
    started = [_serve(), _serve()]
    try:
        yield started[0][1], started[1][1]
    finally:
        for process, client in started:
            client.close()
            process.terminate()
            process.communicate(timeout=10)


def _build(client: httpx.Client, hook_port: int) -> None:
    client.post(
        "/v1/webhook_endpoints",
        json={"url": f"http://127.0.0.1:{hook_port}/hook", "events": ["document.*"]},
    )
    vault = client.post("/eu/v1/vaults", json={"name": "Moving", "region": "eu"}).json()
    doc = client.post("/eu/v1/documents", json={"title": "Moved", "vault_id": vault["id"]}).json()
    steps = [{"assignee": "ann@example.com"}]
    workflow = client.post("/eu/v1/workflows", json={"document_id": doc["id"], "steps": steps})
    client.post(f"/eu/v1/workflows/{workflow.json()['id']}/advance", json={"decision": "approve"})
    client.post(
        "/v1/documents",
        json={"title": "Seeded vault", "vault_id": "vault_mock_us"},
        headers={"Idempotency-Key": "move-1"},
    )
    client.post("/_mock/documents/doc_mock_draft/legal_hold", json={"on": True})
    client.post("/_mock/webhooks/wait")


def _afterwards(client: httpx.Client) -> list[tuple[int, list[tuple[str, str]], bytes]]:
    answers = []
    for method, path, body in [
        ("POST", "/_mock/clock/advance", {"seconds": 7200}),
        ("GET", "/eu/v1/documents", None),
        ("GET", "/v1/documents", None),
        ("GET", "/v1/documents/doc_mock_draft", None),
        ("DELETE", "/v1/documents/doc_mock_draft", None),
        ("POST", "/v1/documents", {"title": "Seeded vault", "vault_id": "vault_mock_us"}),
        ("POST", "/eu/v1/vaults", {"name": "Next", "region": "eu"}),
        ("GET", "/eu/v1/audit_logs", None),
        ("GET", "/v1/audit_logs", None),
        ("GET", "/v1/webhook_endpoints", None),
    ]:
        kwargs: dict[str, Any] = {"json": body} if body is not None else {}
        headers = {"Idempotency-Key": "move-1"} if path == "/v1/documents" and body else {}
        response = client.request(method, path, headers=headers, **kwargs)
        # A control-plane call's request id is not the sandbox's: it comes from a stream of
        # the server's own, which a snapshot does not hold.
        headers = sorted(
            (k, v)
            for k, v in response.headers.items()
            if not (path.startswith("/_mock") and k == "x-request-id")
        )
        answers.append((response.status_code, headers, response.content))
    client.post("/_mock/webhooks/wait")
    deliveries = client.get("/_mock/webhooks/deliveries").json()["data"]
    summary = [(d["id"], d["event_id"], d["status"], len(d["attempts"])) for d in deliveries]
    answers.append((200, [], repr(summary).encode()))
    return answers


def test_a_downloaded_snapshot_answers_alike_in_a_second_process(
    two_servers: tuple[httpx.Client, httpx.Client],
) -> None:
    first, second = two_servers
    _build(first, closed_port())
    assert first.post("/_mock/snapshots", json={"name": "moving"}).status_code == 201
    file = first.get("/_mock/snapshots/moving/download").content

    uploaded = second.post("/_mock/snapshots/upload", params={"name": "arrived"}, content=file)
    assert uploaded.status_code == 201, uploaded.text
    assert second.post("/_mock/snapshots/arrived/restore").status_code == 200
    # Every call draws a request id, /_mock ones too: both servers start from the snapshot.
    assert first.post("/_mock/snapshots/moving/restore").status_code == 200

    here, there = _afterwards(first), _afterwards(second)
    assert here[1][0] == 200
    assert here[4][0] == 409  # the held document stays held
    assert here == there
