"""Many client threads against one server over real sockets: no double execution, no 5xx,
no interleaving that breaks a read-modify-write, and an audit chain that still verifies.
One in-process test holds a body mid-upload to show when an operation takes its time."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer
from tests.support.asgi import Pause, request
from tests.support.audit import all_events, verify
from tests.support.keys import FULL, LIVE, auth

THREADS = 16
KEYS = 40  # each thread sends every key once, so each key is sent 16 times
JOIN_TIMEOUT = 60


def run_threads(count: int, work: Callable[[int], None]) -> None:
    """Run `work(n)` on `count` threads started together; re-raise the first failure."""
    barrier = threading.Barrier(count)
    failures: list[BaseException] = []

    def body(n: int) -> None:
        try:
            barrier.wait(timeout=JOIN_TIMEOUT)
            work(n)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=body, args=(n,), daemon=True) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOIN_TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a client thread hung"
    if failures:
        raise failures[0]


@pytest.fixture
def live_key_client(live_server: LiveServer, fresh_app: Starlette) -> httpx.Client:
    """The live environment (plan: 1000 requests a minute) starts empty: easy to count in."""
    return httpx.Client(base_url=live_server.base_url, headers=auth(LIVE), timeout=30)


def test_threads_retrying_keys_create_one_document_per_key(
    live_server: LiveServer, live_key_client: httpx.Client
) -> None:
    with live_key_client as client:
        vault = client.post("/v1/vaults", json={"name": "Load", "region": "us"}).json()["id"]
        keys = [f"load-{i:02d}" for i in range(KEYS)]
        seen: dict[str, list[tuple[int, bytes, bool, str]]] = defaultdict(list)
        lock = threading.Lock()

        def work(n: int) -> None:
            order = keys[n % KEYS :] + keys[: n % KEYS]  # every thread starts somewhere else
            with httpx.Client(
                base_url=live_server.base_url, headers=auth(LIVE), timeout=30
            ) as mine:
                for key in order:
                    response = mine.post(
                        "/v1/documents",
                        json={"title": key, "vault_id": vault},
                        headers={"Idempotency-Key": key},
                    )
                    replayed = response.headers.get("idempotent-replayed") == "true"
                    message = response.json().get("error", {}).get("message", "")
                    with lock:
                        seen[key].append(
                            (response.status_code, response.content, replayed, message)
                        )

        run_threads(THREADS, work)

        assert sorted(seen) == keys
        for key, answers in seen.items():
            assert len(answers) == THREADS
            statuses = {status for status, *_ in answers}
            assert statuses <= {201, 409}, (key, statuses)
            # a 409 can only be a retry that came while the first request was still running
            assert all("still being processed" in m for s, _, _, m in answers if s == 409)
            created = [body for status, body, replayed, _ in answers if status == 201]
            originals = [
                body for status, body, replayed, _ in answers if status == 201 and not replayed
            ]
            assert len(originals) == 1, key
            assert set(created) == {originals[0]}  # every replay is the original, byte for byte

        listed = client.get("/v1/documents", params={"vault_id": vault, "limit": 100}).json()
        assert sorted(d["title"] for d in listed["data"]) == keys
        events = all_events(client)
        verify(events)
        assert [e["type"] for e in events].count("document.created") == KEYS


def test_threads_racing_on_one_step_decide_it_once(
    live_server: LiveServer, live_key_client: httpx.Client
) -> None:
    """Sixteen callers approve the single step of one workflow at the same moment: one wins,
    the others find the workflow completed, and the document is signed once."""
    with live_key_client as client:
        vault = client.post("/v1/vaults", json={"name": "Race", "region": "us"}).json()["id"]
        doc = client.post("/v1/documents", json={"title": "t", "vault_id": vault}).json()["id"]
        steps = [{"assignee": "a@b.co"}]
        wf = client.post("/v1/workflows", json={"document_id": doc, "steps": steps}).json()
        statuses: list[int] = []
        lock = threading.Lock()

        def work(n: int) -> None:
            with httpx.Client(
                base_url=live_server.base_url, headers=auth(LIVE), timeout=30
            ) as mine:
                response = mine.post(
                    f"/v1/workflows/{wf['id']}/advance",
                    json={"decision": "approve", "comment": f"caller {n}"},
                )
                with lock:
                    statuses.append(response.status_code)

        run_threads(THREADS, work)

        assert sorted(statuses) == [200] + [409] * (THREADS - 1)
        events: list[dict[str, Any]] = all_events(client)
        verify(events)
        types = [e["type"] for e in events if e["resource_id"] in (doc, wf["id"])]
        assert types.count("document.signed") == 1
        assert types.count("workflow.completed") == 1
        assert types.count("signature.completed") == 1


def test_an_operation_takes_its_time_after_its_body_arrived(fresh_app: Starlette) -> None:
    """The clock moves while a body is uploading: the document and its audit event are
    stamped when the operation ran, so the chain's times never go backwards."""
    headers = [(b"authorization", f"Bearer {FULL}".encode())]
    body = b'{"title": "Slow upload", "vault_id": "vault_mock_us"}'

    async def scenario() -> None:
        pause = Pause()
        upload = asyncio.create_task(
            request(
                fresh_app,
                "POST",
                "/v1/documents",
                headers=headers,
                chunks=[body[:10], body[10:]],
                pause=pause,
            )
        )
        await pause.reached.wait()
        moved = await request(
            fresh_app, "POST", "/_mock/clock/advance", chunks=[b'{"seconds": 600}']
        )
        assert moved.status == 200
        pause.release.set()
        created = await upload
        assert created.status == 201
        assert created.json()["created_at"] == "2026-01-15T09:10:00Z"

    asyncio.run(asyncio.wait_for(scenario(), timeout=10))
    with inprocess_client(fresh_app, headers=auth(FULL)) as client:
        events = all_events(client)
    verify(events)
    times = [e["at"] for e in events]
    assert times == sorted(times)
    assert [e["type"] for e in events[-2:]] == ["document.locked", "document.created"]
