"""Worlds share the seeded objects and copy one before changing it; documents keep their rendered
JSON. Neither may show: after changes of every kind and a reset, every read answers the same
bytes as a server that never changed anything, and a changed document never answers old bytes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.domain import views
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import EU, FULL, LIVE, auth

KEYS = (FULL, EU, LIVE)
REJECTED = "doc_2UYRnVMiIPO4VE7jfbLcaxWe"  # the document of wf_Ql69R0bk7bY9FZMGtDmrJT9K
APPROVE, REJECT = {"decision": "approve"}, {"decision": "reject"}
FROZEN = Settings(clock_mode="frozen", rate_limit=False)  # many reads: no 429s


def read_everything(app: Starlette) -> dict[str, bytes]:
    """Every seeded world's documents (pages and details), vaults, workflows and audit page."""
    seen: dict[str, bytes] = {}
    seed = app.state.store.seed
    with inprocess_client(app) as client:
        for key in KEYS:
            for prefix in ("/us/v1", "/eu/v1"):

                def get(path: str, key: str = key) -> None:
                    seen[f"{key} {path}"] = client.get(path, headers=auth(key)).content

                get(f"{prefix}/vaults")
                get(f"{prefix}/audit_logs?limit=100")
                cursor = ""
                while True:
                    path = f"{prefix}/documents?limit=7{cursor}"
                    get(path)
                    page = orjson.loads(seen[f"{key} {path}"])
                    if not page.get("has_more"):
                        break
                    cursor = f"&cursor={page['next_cursor']}"
                for env in seed.environments.values():
                    for vault in env.vaults:
                        get(f"{prefix}/vaults/{vault.id}")
                    for doc in env.documents:
                        get(f"{prefix}/documents/{doc.id}")
                    for workflow in env.workflows:
                        get(f"{prefix}/workflows/{workflow.id}")
    return seen


def first(client: httpx.Client, status: str, key: str = FULL, prefix: str = "/us") -> str:
    page = client.get(f"{prefix}/v1/documents?status={status}&limit=100", headers=auth(key))
    return str(page.json()["data"][-1]["id"])


Change = tuple[str, str, "dict[str, object] | None", str, int]


def changes(client: httpx.Client) -> list[Change]:
    """A change of every kind to seeded objects (and new ones) of several worlds, some objects
    changed twice."""
    draft = first(client, "draft")
    eu_draft = first(client, "draft", EU, "/eu")
    steps = [{"assignee": "a@example.com"}]
    return [
        # approved twice, it completes: its document is signed
        ("POST", "/v1/workflows/wf_mock_in_review/advance", APPROVE, FULL, 200),
        ("POST", "/v1/workflows/wf_mock_in_review/advance", APPROVE, FULL, 200),
        ("POST", "/eu/v1/workflows/wf_bFiYh9HdExXnPvInk0dXgRgk/advance", REJECT, FULL, 200),
        ("POST", "/eu/v1/workflows/wf_U2kOUSIEziSqO9YPMrwtCsQa/advance", APPROVE, EU, 200),
        ("POST", "/v1/workflows/wf_M1AUWwIRbO3Tt4kp25qhpGKz/advance", APPROVE, FULL, 200),
        ("POST", "/v1/workflows", {"document_id": "doc_mock_draft", "steps": steps}, FULL, 201),
        ("DELETE", f"/v1/documents/{draft}", None, FULL, 200),
        ("DELETE", f"/eu/v1/documents/{eu_draft}", None, EU, 200),
        ("POST", "/_mock/documents/doc_mock_locked/legal_hold", {"on": True}, FULL, 200),
        ("POST", "/_mock/documents/doc_mock_legal_hold/legal_hold", {"on": False}, FULL, 200),
        ("POST", "/_mock/documents/doc_mock_locked/legal_hold", {"on": False}, FULL, 200),
        ("POST", "/v1/vaults", {"name": "New", "region": "us"}, FULL, 201),
        ("POST", "/v1/documents", {"title": "New", "vault_id": "vault_mock_us"}, FULL, 201),
        # locks what was signed, seeded and new; then a reject sends one back to draft
        ("POST", "/_mock/clock/advance", {"seconds": 86_400}, FULL, 200),
        ("POST", "/v1/workflows/wf_Ql69R0bk7bY9FZMGtDmrJT9K/advance", REJECT, FULL, 200),
        ("POST", "/v1/workflows", {"document_id": REJECTED, "steps": steps}, FULL, 201),
    ]


def apply(client: httpx.Client, change: Change) -> None:
    method, path, body, key, status = change
    answer = client.request(method, path, json=body, headers=auth(key))
    assert answer.status_code == status, answer.text


def change_everything(client: httpx.Client) -> None:
    for change in changes(client):
        apply(client, change)


@pytest.fixture(scope="module")
def server() -> Starlette:
    return create_app(FROZEN)


@pytest.fixture
def app(server: Starlette) -> Starlette:
    server.state.store.reset()
    return server


@pytest.fixture
def client(app: Starlette) -> Iterator[httpx.Client]:
    with inprocess_client(app, headers=auth()) as client:
        yield client


@pytest.fixture(scope="module")
def untouched() -> dict[str, bytes]:
    """What a server that never changed anything answers."""
    return read_everything(create_app(FROZEN))


def test_a_reset_after_changes_of_every_kind_reads_as_a_fresh_server(
    client: httpx.Client, app: Starlette, untouched: dict[str, bytes]
) -> None:
    assert read_everything(app) == untouched  # and the documents' JSON is now cached
    change_everything(client)
    changed = read_everything(app)
    assert changed != untouched
    assert (
        changed["sk_test_mock_full /us/v1/documents/doc_mock_in_review"]
        != (untouched["sk_test_mock_full /us/v1/documents/doc_mock_in_review"])
    )
    app.state.store.reset()
    assert read_everything(app) == untouched


def test_servers_built_from_one_seed_share_no_changes(untouched: dict[str, bytes]) -> None:
    one = create_app(FROZEN)
    other = create_app(FROZEN, seed=one.state.store.seed)
    with inprocess_client(one, headers=auth()) as client:
        change_everything(client)
    assert read_everything(other) == untouched


def test_a_shifted_seed_is_copied_once_and_not_changed(untouched: dict[str, bytes]) -> None:
    later = dataclasses.replace(FROZEN, start_time="2026-03-01T00:00:00Z")
    app = create_app(later)
    before = read_everything(app)
    with inprocess_client(app, headers=auth()) as client:
        change_everything(client)
    app.state.store.reset()
    assert read_everything(app) == before != untouched


def region_data(app: Starlette, key: str, region: str) -> Any:
    credential = app.state.store.keys[key]
    return app.state.store.world(credential.account_id, credential.environment).regions[region]


def page_of(app: Starlette, docs: list[Any], limit: int = 100) -> bytes:
    more = len(docs) > limit
    cursor = app.state.store.cursors.encode(docs[limit - 1].seq) if more else None
    return orjson.dumps(views.page([views.document_summary(d) for d in docs[:limit]], more, cursor))


def rendered(app: Starlette, key: str, region: str) -> dict[str, bytes]:
    """Each document's detail and some pages (all, drafts, one vault's, a walk of 3 a page),
    rendered from the objects without caches."""
    data = region_data(app, key, region)
    vault = data.vault_order[0].id
    live = [d for d in reversed(data.doc_order) if not d.deleted]
    out = {d.id: orjson.dumps(views.document_detail(d)) for d in live}
    out["page"] = page_of(app, live)
    out["drafts"] = page_of(app, [d for d in live if d.status == "draft"])
    out["vault"] = page_of(app, [d for d in live if d.vault_id == vault])
    out["walk"] = page_of(app, live, 3) + page_of(app, live[3:], 3)
    return out


def served(client: httpx.Client, key: str, region: str, vault: str) -> dict[str, bytes]:
    headers = auth(key)
    base = f"/{region}/v1/documents"
    page = client.get(f"{base}?limit=100", headers=headers)
    out = {d["id"]: b"" for d in page.json()["data"]}
    for doc_id in out:
        out[doc_id] = client.get(f"{base}/{doc_id}", headers=headers).content
    out["page"] = page.content
    out["drafts"] = client.get(f"{base}?limit=100&status=draft", headers=headers).content
    out["vault"] = client.get(f"{base}?limit=100&vault_id={vault}", headers=headers).content
    first = client.get(f"{base}?limit=3", headers=headers)
    cursor = first.json()["next_cursor"]
    second = client.get(f"{base}?limit=3&cursor={cursor}", headers=headers)
    out["walk"] = first.content + second.content
    return out


def assert_fresh(app: Starlette, client: httpx.Client) -> None:
    """Every page twice: the second answer comes from the kept page when there is one."""
    for key, region in ((FULL, "us"), (EU, "eu")):
        vault = region_data(app, key, region).vault_order[0].id
        for _ in range(2):
            assert served(client, key, region, vault) == rendered(app, key, region)


def test_cached_json_is_never_stale(client: httpx.Client, app: Starlette) -> None:
    """Read (caching) after every change: what is served is what the objects render to now."""
    assert_fresh(app, client)
    for change in changes(client):
        apply(client, change)
        assert_fresh(app, client)


@pytest.mark.parametrize("has_more", [True, False])
def test_a_page_joined_from_cached_items_is_what_orjson_makes_of_the_page(
    app: Starlette, has_more: bool
) -> None:
    docs = list(app.state.store.world("acct_mock_us", "sandbox").regions["us"].doc_order)[-5:]
    docs[0] = dataclasses.replace(docs[0], title='quotes " and \\ and \u00e9 and \U0001f600')
    for page in ([], docs[:1], docs):
        cursor = app.state.store.cursors.encode(7) if has_more else None
        expected = orjson.dumps(
            views.page([views.document_summary(d) for d in page], has_more, cursor)
        )
        assert views.document_page_json(page, has_more, cursor) == expected
        for doc in page:
            assert views.document_detail_json(doc) == orjson.dumps(views.document_detail(doc))
