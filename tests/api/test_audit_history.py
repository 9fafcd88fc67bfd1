"""The seeded audit history is stored compactly (columns, digests, replayed on demand) and
made on first need: its served bytes must be exactly those it had when every event was kept
as bytes, whatever happened to the world before the chain was first read."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import httpx
from starlette.applications import Starlette

from mockserver.domain.models import WorkflowStep, copy_step
from tests.support.audit import all_events, verify
from tests.support.workflows import A, start

# sha256 over every seeded chain of the default seed, (world, region, length, head) and each
# event's bytes, computed with the code that kept every event's bytes (before this storage).
DEFAULT_SEED_CHAINS = "0857efb38073bf2bfc3e287a43880cfeb07a632a8bcc5feb261b63c2a3199aec"


def chains_digest(app: Starlette) -> str:
    store = app.state.store
    digest = hashlib.sha256()
    for world in store.seeded_worlds():
        for name, region in world.regions.items():
            events = region.audit.events
            key = f"{world.account.id}/{world.environment}/{name}/{len(events)}/{region.audit.head}"
            digest.update(f"{key}\n".encode())
            for event in events:
                digest.update(event.raw)
    return digest.hexdigest()


def test_seeded_chains_have_the_bytes_they_always_had(fresh_app: Starlette) -> None:
    assert chains_digest(fresh_app) == DEFAULT_SEED_CHAINS


def test_a_write_before_the_first_read_leaves_the_history_as_seeded(
    fresh_app: Starlette, api: httpx.Client
) -> None:
    """The history is replayed from the pristine seed, never from the world's live objects:
    here the seeded draft is in review (and its vault's chain built) before anything is read."""
    start(api, "doc_mock_draft", [{"assignee": A}])
    after_write = all_events(api)
    fresh_app.state.store.reset()
    before_write = all_events(api)
    start(api, "doc_mock_draft", [{"assignee": A}])
    assert all_events(api) == after_write
    assert after_write[: len(before_write)] == before_write
    verify(after_write)
    fresh_app.state.store.reset()
    assert chains_digest(fresh_app) == DEFAULT_SEED_CHAINS


def test_resource_filter_matches_a_scan_of_every_event(api: httpx.Client) -> None:
    start(api, "doc_mock_draft", [{"assignee": A}])
    everything = all_events(api)
    vault_of = {
        e["resource_id"]: e["data"]["vault_id"] for e in everything if "vault_id" in e["data"]
    }
    for rid in ("vault_mock_us", "doc_mock_draft", "doc_mock_locked", "wf_mock_locked"):
        expected = [e for e in everything if rid in _matched(e, vault_of)]
        assert all_events(api, f"&resource_id={rid}") == expected
        assert expected


def _matched(event: dict[str, Any], vault_of: dict[str, str]) -> set[str]:
    """The resource and its parents: a workflow's document and that document's vault."""
    data = event["data"]
    ids = {event["resource_id"], data.get("vault_id"), data.get("document_id")}
    return {i for i in ids if isinstance(i, str)} | {vault_of.get(data.get("document_id", ""), "")}


def test_a_decided_step_copy_carries_every_field() -> None:
    step = WorkflowStep("a@x.co", "1 > 0", "approve", 120, "ok")
    copy = copy_step(step, 10)
    assert copy == dataclasses.replace(step, decided_at=130)
