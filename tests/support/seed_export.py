"""A sandbox state of every kind the API can build, and everything the API shows of it: what
the tests of `GET /_mock/seed` build on one server and compare with the server started from
its seed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
import yaml

from mockserver.testing.receiver import closed_port
from tests.support.keys import EU, FULL, LIVE, auth

PREFIXES = ("/us/v1", "/eu/v1")
STATUSES = ("draft", "in_review", "signed", "locked")
HOOK_URL = f"http://127.0.0.1:{closed_port()}/hooks"
# Metadata a YAML writer could get wrong: YAML 1.1 words, number-like and quoted keys, text
# that looks like a time, a number or a bool, escapes and characters outside ASCII.
ODD_METADATA: dict[str, Any] = {
    "yes": "no",
    "on": True,
    "123": "0123",
    "null": "~",
    'say "hi"': "line\nbreak\ttab",
    "when": "2026-01-15T09:00:00Z",
    "amount": 250000,
    "big": 2**53 - 1,
    "négatif": -7,
    "grüße": "😀 café",
    "colon: here": "- dash",
}


@dataclass
class State:
    """What `build` made: the keys to read it with, and the workflows it started."""

    keys: list[str] = field(default_factory=lambda: [FULL, LIVE, EU])
    workflows: list[str] = field(default_factory=list)
    gone_workflows: list[str] = field(default_factory=list)  # of deleted documents
    pending_lock: str = ""  # a document signed less than its vault's lock_after ago


def _ok(response: httpx.Response, status: int = 201) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


def _workflow(
    client: httpx.Client, prefix: str, doc_id: str, steps: list[dict[str, Any]], key: str
) -> str:
    body = {"document_id": doc_id, "steps": steps}
    made = _ok(client.post(f"{prefix}/workflows", json=body, headers=auth(key)))
    return str(made["id"])


def _advance(
    client: httpx.Client, prefix: str, workflow_id: str, key: str, decision: str, **extra: str
) -> None:
    body = {"decision": decision, **extra}
    _ok(client.post(f"{prefix}/workflows/{workflow_id}/advance", json=body, headers=auth(key)), 200)


def build(client: httpx.Client) -> State:
    """Vaults in both regions, documents in every status with metadata and signers, completed,
    rejected and open workflows, legal holds, a deleted document, webhook endpoints, changed
    seeded objects and a second account; the clock moved so that the signatures locked but
    one, still waiting for its lock."""
    state = State()
    second = _ok(client.post("/_mock/accounts", json={"region": "eu", "name": "QA second"}))
    state.keys.append(second["keys"]["full"])
    everything = {"url": HOOK_URL, "events": ["*"]}
    for key in (FULL, LIVE, second["keys"]["full"]):
        _ok(client.post("/v1/webhook_endpoints", json=everything, headers=auth(key)))
        for prefix in PREFIXES:
            _build_region(client, state, key, prefix)
    some = {"url": "https://hooks.example/in", "events": ["document.signed", "workflow.rejected"]}
    _ok(client.post("/v1/webhook_endpoints", json=some, headers=auth(FULL)))

    # Seeded objects changed: a seeded workflow approved, a seeded draft held.
    _advance(client, "/v1", "wf_mock_in_review", FULL, "approve", comment="Seeded, then approved")
    _ok(client.post("/_mock/documents/doc_mock_draft/legal_hold", json={"on": True}), 200)
    _ok(client.delete("/v1/documents/doc_mock_legal_hold", headers=auth(FULL)), 409)

    _ok(client.post("/_mock/clock/advance", json={"seconds": 600}), 200)  # those signed lock
    late = {"title": "Signed late", "vault_id": "vault_mock_us"}
    state.pending_lock = _ok(client.post("/v1/documents", json=late, headers=auth(FULL)))["id"]
    flow = _workflow(client, "/v1", state.pending_lock, [{"assignee": "ann@qa.example"}], FULL)
    _advance(client, "/v1", flow, FULL, "approve")
    state.workflows.append(flow)
    _ok(client.post("/_mock/clock/advance", json={"seconds": 60}), 200)
    return state


def _build_region(client: httpx.Client, state: State, key: str, prefix: str) -> None:
    """A vault of the region of `prefix` and its documents, in every status, with `key`."""
    region = prefix[1:3]
    body = {"name": f"QA {region}", "region": region, "members": ["ann@qa.example", "b@qa.example"]}
    vault = _ok(client.post(f"{prefix}/vaults", json=body, headers=auth(key)))["id"]

    def doc(title: str, metadata: dict[str, Any] | None = None) -> str:
        body: dict[str, Any] = {"title": title, "vault_id": vault}
        if metadata is not None:
            body["metadata"] = metadata
        return str(_ok(client.post(f"{prefix}/documents", json=body, headers=auth(key)))["id"])

    doc("A draft", ODD_METADATA)
    held = doc("Held draft", {"kind": "nda"})
    _ok(client.post(f"/_mock/documents/{held}/legal_hold", json={"on": True}), 200)
    steps = [
        {"assignee": "ann@qa.example"},
        {"assignee": "bob@qa.example", "condition": "metadata.amount > 50000"},
        {"assignee": "cid@qa.example"},
    ]
    flow = _workflow(client, prefix, doc("In review", {"amount": 60000}), steps, key)
    _advance(client, prefix, flow, key, "approve", comment="")
    state.workflows.append(flow)
    flow = _workflow(client, prefix, doc("Signed", {"amount": 10}), steps, key)  # bob's skipped
    _advance(client, prefix, flow, key, "approve", comment="Fine")
    _advance(client, prefix, flow, key, "approve")
    state.workflows.append(flow)
    rejected = doc("Rejected twice, then approved", {"amount": 1})
    for decision in ("reject", "reject", "approve"):
        flow = _workflow(client, prefix, rejected, steps[:1], key)
        _advance(client, prefix, flow, key, decision, comment="Not yet.")
        state.workflows.append(flow)
    only_big = [{"assignee": "bob@qa.example", "condition": "metadata.amount > 5"}]
    state.workflows.append(_workflow(client, prefix, doc("Signed by nobody"), only_big, key))
    gone = doc("Deleted in review")
    state.gone_workflows.append(_workflow(client, prefix, gone, steps, key))
    _ok(client.delete(f"{prefix}/documents/{gone}", headers=auth(key)), 200)


def workflow_ids(seed_text: str) -> list[str]:
    """Every workflow a seed file lists."""
    seed = yaml.safe_load(seed_text)
    return [
        flow["id"]
        for account in seed["accounts"]
        for env in (account.get("environments") or {}).values()
        for flow in (env or {}).get("workflows") or ()
    ]


def read_everything(client: httpx.Client, keys: list[str], workflows: list[str]) -> dict[str, Any]:
    """What the API shows through each key and base URL: identity, webhook endpoints, vaults
    (list and each), documents (every page, each status, each document) and workflows. A
    cursor is left out: it names a position of one server, not data; so is an error's request
    id."""
    seen: dict[str, Any] = {}
    for key in keys:
        headers = auth(key)

        def get(path: str, headers: dict[str, str] = headers) -> Any:
            response = client.get(path, headers=headers)
            body = response.json()
            if response.status_code >= 400:  # its request id counts the server's requests
                body["error"].pop("request_id")
            return response.status_code, body

        seen[f"{key} whoami"] = get("/v1/whoami")
        seen[f"{key} hooks"] = get("/v1/webhook_endpoints")
        for prefix in PREFIXES:
            status, vaults = get(f"{prefix}/vaults")
            seen[f"{key} {prefix}/vaults"] = status, vaults
            for vault in vaults["data"]:
                seen[f"{key} {prefix}/vaults/{vault['id']}"] = get(f"{prefix}/vaults/{vault['id']}")
            for query in ("", *(f"status={s}&" for s in STATUSES)):
                pages = _pages(client, f"{prefix}/documents?{query}limit=7", headers)
                seen[f"{key} {prefix}/documents?{query}"] = pages
            for page in seen[f"{key} {prefix}/documents?"]:
                for doc in page["data"]:
                    seen[f"{key} {prefix}/documents/{doc['id']}"] = get(
                        f"{prefix}/documents/{doc['id']}"
                    )
            for flow in workflows:
                seen[f"{key} {prefix}/workflows/{flow}"] = get(f"{prefix}/workflows/{flow}")
    return seen


def _pages(client: httpx.Client, path: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    pages = []
    cursor = None
    while True:
        target = path if cursor is None else f"{path}&cursor={cursor}"
        response = client.get(target, headers=headers)
        assert response.status_code == 200, response.text
        page = response.json()
        cursor = page.pop("next_cursor")
        pages.append(page)
        if cursor is None:
            return pages
