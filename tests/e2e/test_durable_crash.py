"""Crash safety of `mockserver run --state-dir`: under a concurrent load of writes and reads,
the server is killed with SIGKILL at seeded random moments and restarted on the same DIR.

After every restart: every write answered 2xx is there, a write answered non-2xx left nothing
behind, answered idempotent retries gave the first answer, no id (request ids included) that
was answered is ever answered again for something else, and every audit chain verifies.
Requests in flight at the kill got no answer: they may or may not have happened, both are fine.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support.audit import all_events, verify
from tests.support.durable import DurableServer
from tests.support.keys import auth
from tests.support.workflows import A, B

KILLS = 20
WORKERS = 4
SEED = 20261124


@dataclass
class Ledger:
    """What the clients were told, across every process of the run."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    documents: dict[str, str] = field(default_factory=dict)  # title -> id, answered 2xx
    refused: set[str] = field(default_factory=set)  # titles of creates answered non-2xx
    vaults: dict[str, str] = field(default_factory=dict)  # name -> id, answered 2xx
    keyed: dict[str, bytes] = field(default_factory=dict)  # idempotency key -> first 2xx body
    approvals: dict[str, int] = field(default_factory=dict)  # workflow id -> approvals answered
    request_ids: set[str] = field(default_factory=set)
    ids: dict[str, str] = field(default_factory=dict)  # every id answered -> what it named
    counter: int = 0

    def name(self, kind: str) -> str:
        with self.lock:
            self.counter += 1
            return f"{kind}-{self.counter}"

    def answered(self, response: httpx.Response) -> None:
        request_id = response.headers["x-request-id"]
        with self.lock:
            assert request_id not in self.request_ids, f"request id {request_id} answered twice"
            self.request_ids.add(request_id)

    def named(self, object_id: str, what: str) -> None:
        with self.lock:
            assert self.ids.setdefault(object_id, what) == what, f"{object_id} reused for {what}"


def _create_document(client: httpx.Client, ledger: Ledger, rng: random.Random) -> None:
    title = ledger.name("doc")
    vault = "vault_mock_us"
    if rng.random() < 0.2:
        vault = "vault_does_not_exist"  # 404: must leave nothing behind
    body: dict[str, Any] = {"title": title, "vault_id": vault}
    if rng.random() < 0.1:
        del body["vault_id"]  # 422
    headers = {}
    key = ""
    if rng.random() < 0.5:
        key = f"key-{title}"
        headers["Idempotency-Key"] = key
    response = client.post("/v1/documents", json=body, headers=headers)
    ledger.answered(response)
    if response.status_code != 201:
        with ledger.lock:
            ledger.refused.add(title)
        return
    doc_id = response.json()["id"]
    ledger.named(doc_id, title)
    with ledger.lock:
        ledger.documents[title] = doc_id
        if key:
            ledger.keyed[key] = response.content
    if key:
        again = client.post("/v1/documents", json=body, headers=headers)  # a retry: the same
        assert again.status_code == 201  # answer, request id included
        assert again.content == response.content
        assert again.headers["x-request-id"] == response.headers["x-request-id"]
        other = client.post("/v1/documents", json={**body, "title": "x" + title}, headers=headers)
        ledger.answered(other)  # the same key with another body: 409, nothing made
        assert other.status_code == 409, other.text
        with ledger.lock:
            ledger.refused.add("x" + title)


def _create_vault(client: httpx.Client, ledger: Ledger, rng: random.Random) -> None:
    name = ledger.name("vault")
    region = rng.choice(["us", "eu", "mars"])  # mars: 422
    prefix = "/eu/v1" if region == "eu" else "/v1"
    response = client.post(f"{prefix}/vaults", json={"name": name, "region": region})
    ledger.answered(response)
    if response.status_code == 201:
        vault_id = response.json()["id"]
        ledger.named(vault_id, name)
        with ledger.lock:
            ledger.vaults[name] = vault_id
    else:
        assert region == "mars", response.text


def _workflow(client: httpx.Client, ledger: Ledger, rng: random.Random) -> None:
    body = {"title": ledger.name("wfdoc"), "vault_id": "vault_mock_us"}
    made = client.post("/v1/documents", json=body)
    ledger.answered(made)
    assert made.status_code == 201, made.text
    doc_id = made.json()["id"]
    started = client.post(
        "/v1/workflows", json={"document_id": doc_id, "steps": [{"assignee": A}, {"assignee": B}]}
    )
    ledger.answered(started)
    assert started.status_code == 201, started.text
    wf_id = started.json()["id"]
    ledger.named(wf_id, f"workflow of {doc_id}")
    with ledger.lock:
        ledger.approvals[wf_id] = 0
    for _ in range(rng.randint(1, 3)):  # a third approval of two steps: 409
        response = client.post(f"/v1/workflows/{wf_id}/advance", json={"decision": "approve"})
        ledger.answered(response)
        if response.status_code != 200:
            assert response.status_code == 409, response.text
            break
        with ledger.lock:
            ledger.approvals[wf_id] += 1


def _read(client: httpx.Client, ledger: Ledger, rng: random.Random) -> None:
    response = client.get("/v1/documents", params={"limit": rng.randint(1, 20)})
    ledger.answered(response)
    assert response.status_code == 200


OPERATIONS: list[tuple[Callable[[httpx.Client, Ledger, random.Random], None], float]] = [
    (_create_document, 0.45),
    (_create_vault, 0.15),
    (_workflow, 0.15),
    (_read, 0.25),
]


def _load(client: httpx.Client, ledger: Ledger, rng: random.Random, stop: threading.Event) -> None:
    """One client's requests until the server dies (or `stop`)."""
    actions, weights = zip(*OPERATIONS, strict=True)
    while not stop.is_set():
        action = rng.choices(actions, weights)[0]
        try:
            action(client, ledger, rng)
        except httpx.TransportError:
            return  # killed under it: no answer, no promise


def _check(client: httpx.Client, ledger: Ledger) -> None:
    titles: dict[str, str] = {}
    cursor = ""
    while True:
        page = client.get(f"/v1/documents?limit=100{cursor}").json()
        titles.update((d["title"], d["id"]) for d in page["data"])
        if not page["has_more"]:
            break
        cursor = f"&cursor={page['next_cursor']}"
    for title, doc_id in ledger.documents.items():
        assert titles.get(title) == doc_id, f"answered document {title} ({doc_id}) is missing"
    half = ledger.refused & titles.keys()
    assert not half, f"refused creates left documents behind: {sorted(half)}"
    vaults = {v["id"] for v in client.get("/v1/vaults").json()["data"]}
    vaults |= {v["id"] for v in client.get("/eu/v1/vaults").json()["data"]}
    missing = set(ledger.vaults.values()) - vaults
    assert not missing, f"answered vaults are missing: {missing}"
    for wf_id, approved in ledger.approvals.items():
        workflow = client.get(f"/v1/workflows/{wf_id}").json()
        decided = sum(1 for step in workflow["steps"] if step.get("decision") == "approve")
        assert decided >= approved, f"{wf_id}: {approved} approvals answered, {decided} kept"
    verify(all_events(client))
    verify(all_events(client, prefix="/eu/v1"))


def test_kill_9_under_load_loses_nothing_that_was_answered(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    ledger = Ledger()
    server = DurableServer(tmp_path / "state", "--no-rate-limit")
    for _ in range(KILLS):
        client = server.start()
        _check(client, ledger)
        stop = threading.Event()
        base = f"http://127.0.0.1:{server.port}"
        clients = [
            httpx.Client(base_url=base, headers=auth(), timeout=10.0) for _ in range(WORKERS)
        ]
        seeds = [rng.randrange(2**32) for _ in range(WORKERS)]
        with ThreadPoolExecutor(WORKERS) as pool:
            runs = [
                pool.submit(_load, c, ledger, random.Random(s), stop)
                for c, s in zip(clients, seeds, strict=True)
            ]
            threading.Event().wait(rng.uniform(0.05, 0.3))  # the seeded moment of the kill
            server.kill()
            stop.set()
            for run in runs:
                run.result(timeout=30)  # an assertion inside a client fails the test here
        for worker in clients:
            worker.close()
    client = server.start()
    _check(client, ledger)
    assert len(ledger.documents) > 50  # the load did make writes
    server.stop()
