"""The collector settings of `mockserver run` (mockserver/serving/gc_tuning.py): one freeze at the
end of start-up, nothing frozen after it, so garbage with reference cycles made while serving is
reclaimed; young collections paced by requests. Also: the common path, a world build and a mix of
requests over a real socket (errors, writes, the lifecycle, gzip, exports, resets), makes no
cyclic garbage, so the paced collections stay cheap. The work that does make cycles (webhook
journals, scenarios, snapshot restores) is soaked in tests/serving/test_memory_soak.py.
"""

from __future__ import annotations

import asyncio
import gc
import http.client
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app

KEY = {"Authorization": "Bearer sk_test_mock_full", "Content-Type": "application/json"}


@pytest.fixture
def collector_paused() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Client:
    """http.client, which itself makes no reference cycles (httpx does)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        raw = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        self.conn.request(method, path, body=raw, headers={**KEY, **(headers or {})})
        response = self.conn.getresponse()
        data = response.read()
        plain_json = "json" in response.getheader("content-type", "") and data[:1] == b"{"
        return response.status, json.loads(data) if plain_json else data


def traffic(client: Client) -> None:
    """A bit of everything the API does, successes and failures."""
    assert client.call("GET", "/v1/whoami")[0] == 200
    status, page = client.call("GET", "/v1/documents?limit=2")
    assert status == 200
    assert client.call("GET", f"/v1/documents?limit=2&cursor={page['next_cursor']}")[0] == 200
    assert client.call("GET", "/v1/documents", headers={"Accept-Encoding": "gzip"})[0] == 200
    status, doc = client.call("POST", "/v1/documents", {"title": "t", "vault_id": "vault_mock_us"})
    assert status == 201
    steps = [{"assignee": "a@mock.example"}, {"assignee": "b@mock.example", "condition": "1 > 0"}]
    status, wf = client.call("POST", "/v1/workflows", {"document_id": doc["id"], "steps": steps})
    assert status == 201
    for _ in steps:
        assert client.call("POST", f"/v1/workflows/{wf['id']}/advance", {"decision": "approve"})[0]
    assert client.call("GET", "/v1/audit_logs?limit=5")[0] == 200
    assert client.call("POST", "/v1/audit_logs/export", {"period": "2020-01-01/2030-01-01"})[0]
    assert client.call("POST", "/_mock/clock/advance", {"seconds": 600})[0] == 200
    assert client.call("GET", "/v1/documents/doc_nope")[0] == 404
    assert client.call("GET", "/eu/v1/documents/doc_mock_draft")[0] == 404
    assert client.call("POST", "/v1/documents", b"{not json")[0] == 400
    assert client.call("POST", "/v1/documents", {"title": "t"})[0] == 422
    assert client.call("GET", "/v1/whoami", headers={"Authorization": "Bearer bad"})[0] == 401
    assert client.call("DELETE", "/v1/documents/doc_mock_signed")[0] == 409
    assert client.call("POST", "/_mock/reset")[0] == 200


def test_building_a_world_makes_no_cyclic_garbage(collector_paused: None) -> None:
    app: Starlette = create_app(Settings(clock_mode="frozen"))
    store = app.state.store
    for world in store.seeded_worlds():
        assert world.regions
    store.reset()
    store.world("acct_mock_us", "sandbox")
    assert gc.collect() == 0


def test_serving_makes_no_cyclic_garbage(collector_paused: None) -> None:
    server = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    clients: list[Client] = []
    try:
        clients.append(Client(server.port))
        traffic(clients[-1])  # first use: worlds, caches, lazily imported modules
        gc.collect()
        for _ in range(3):
            clients[-1].conn.close()  # connections come and go too
            clients.append(Client(server.port))
            traffic(clients[-1])
        clients[-1].conn.close()
        assert gc.collect() == 0
    finally:
        for client in clients:
            client.conn.close()
        server.stop()


PROBE = """
import gc, json
from mockserver.core.config import Settings
from mockserver.serving.gc_tuning import GEN0, tune_for_serving
from mockserver.web.app import create_app

app = create_app(Settings(clock_mode="frozen"))
store = app.state.store
tune_for_serving()
at_start = gc.get_freeze_count()
store.world("acct_mock_us", "sandbox")
kept = [[i] for i in range(3 * GEN0)]  # lists are tracked (atomic-only dicts are not)
cycles = []
for _ in range(3 * GEN0):  # garbage with cycles, alive through collections, then dropped
    node = {}
    node["self"] = node
    cycles.append(node)
del node
gc.collect(0)
gc.collect(1)
cycles.clear()
reclaimed = gc.collect()
print(json.dumps({
    "threshold": gc.get_threshold()[0], "gen0": GEN0, "at_start": at_start,
    "at_end": gc.get_freeze_count(), "reclaimed": reclaimed, "kept": len(kept),
    "enabled": gc.isenabled(),
}))
"""


def test_tuning_freezes_start_up_only_and_reclaims_later_cycles() -> None:
    # In a child process: the tuning is process-wide, and this one must keep its defaults.
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    state = json.loads(done.stdout)
    assert state["threshold"] == state["gen0"]
    assert state["enabled"]
    assert state["at_start"] > 0
    assert state["at_end"] == state["at_start"]  # a world build and collections froze nothing
    assert state["reclaimed"] >= 3 * state["gen0"]


def test_young_collections_are_paced_by_requests(collector_paused: None) -> None:
    """With the allocation counter still (the collector paused here), a young collection runs
    after every `every` HTTP requests, and other scopes do not count."""
    from mockserver.serving.gc_tuning import PacedCollection

    served: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        served.append(scope["type"])

    collections: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    app = PacedCollection(inner, every=10)
    gc.callbacks.append(count)
    try:

        async def drive() -> None:
            for _ in range(5):
                await app({"type": "lifespan"}, None, None)
            for _ in range(35):
                await app({"type": "http"}, None, None)

        asyncio.run(drive())
    finally:
        gc.callbacks.remove(count)
    assert collections == [0, 0, 0]
    assert served == ["lifespan"] * 5 + ["http"] * 35
