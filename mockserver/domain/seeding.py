"""Filling a world from the seed: the seeded objects (shifted once per store and shared by
its worlds, which copy one before changing it), their lock timers, and an audit history that
tells how they came to be.

The history is synthesized once per (account, environment) and shared by every reset (events
are immutable): each seeded object's life is replayed on scratch copies in time order (created,
workflow steps, signing, locking) and the views are snapshotted at every event, so the chain
reads as if the API had been used.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mockserver.ids import IdFactory
from mockserver.store import Pristine, Store, World

from . import documents, views
from .audit import SYSTEM, AuditChain
from .models import (
    REGIONS,
    AuditEvent,
    Document,
    EnvironmentSeed,
    Vault,
    Workflow,
    WorkflowStep,
    copy_document,
    copy_vault,
    copy_workflow,
)

Entry = tuple[int, int, str, str, str, str, tuple[str, ...], dict[str, Any]]


def shifted(seed: EnvironmentSeed, shift: int) -> EnvironmentSeed:
    """Copies of a seed's objects with every time moved by `shift` seconds."""
    return EnvironmentSeed(
        vaults=[copy_vault(v, shift) for v in seed.vaults],
        documents=[copy_document(d, shift) for d in seed.documents],
        workflows=[copy_workflow(w, shift) for w in seed.workflows],
    )


def _seeded(store: Store, key: tuple[str, str], seed: EnvironmentSeed) -> Pristine:
    """The shifted seeded objects of (account, environment), built once per store: the shift
    is fixed for the store's life. Unshifted, they are the seed's own objects (never changed:
    worlds copy before changing one)."""
    pristine = store.pristine.get(key)
    if pristine is None:
        data = seed if store.shift == 0 else shifted(seed, store.shift)
        pristine = store.pristine[key] = Pristine(data)
    return pristine


class _History:
    """Collects (time, order, ...) entries while scratch copies replay the seed."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.entries: list[Entry] = []

    def add(
        self,
        at: int,
        region: str,
        type: str,
        actor: str,
        resource_id: str,
        related: tuple[str, ...],
        data: dict[str, Any],
    ) -> None:
        self.entries.append(
            (at, len(self.entries), region, type, actor, resource_id, related, data)
        )

    def document(self, doc: Document, type: str, actor: str, at: int) -> None:
        self.add(at, doc.region, type, actor, doc.id, (doc.vault_id,), views.document_detail(doc))

    def workflow(self, wf: Workflow, doc: Document, type: str, actor: str, at: int) -> None:
        related = (doc.id, doc.vault_id)
        self.add(at, wf.region, type, actor, wf.id, related, views.workflow_detail(wf))


def _replay_workflow(history: _History, wf: Workflow, doc: Document, actor: str) -> None:
    scratch = dataclasses.replace(
        wf,
        status="in_progress",
        current_step=1,
        last_decision=None,
        steps=[WorkflowStep(s.assignee, s.condition) for s in wf.steps],
    )
    doc.status = "in_review"
    decided = [(i, s) for i, s in enumerate(wf.steps) if s.decision is not None]
    # Steps skipped before the first real decision were skipped at creation.
    for i, step in decided:
        if step.decision != "skipped":
            break
        scratch.steps[i] = dataclasses.replace(step)
        scratch.current_step = i + 2
    history.workflow(scratch, doc, "workflow.created", actor, wf.created_at)
    history.document(doc, "document.in_review", actor, wf.created_at)
    for i, step in decided:
        if scratch.steps[i].decision is not None:
            continue
        assert step.decided_at is not None
        scratch.steps[i] = dataclasses.replace(step)
        scratch.current_step = min(i + 2, len(wf.steps))
        if step.decision == "skipped":
            continue
        scratch.last_decision = (step.assignee, step.decision or "")
        if step.decision == "reject":
            scratch.status = "rejected"
            scratch.current_step = i + 1
            history.workflow(scratch, doc, "workflow.rejected", step.assignee, step.decided_at)
            doc.status = "draft"
            history.document(doc, "document.draft", step.assignee, step.decided_at)
        elif wf.status == "completed" and all(s.decision for s in wf.steps[i + 1 :]):
            scratch.status = "completed"
            history.workflow(scratch, doc, "workflow.completed", step.assignee, step.decided_at)
        else:
            history.workflow(scratch, doc, "workflow.advanced", step.assignee, step.decided_at)


def _replay_document(
    history: _History, doc: Document, workflows: list[Workflow], vault: Vault, reference: int
) -> None:
    final = doc
    owner = next((m.email for m in vault.members if m.role == "owner"), history.owner)
    scratch = dataclasses.replace(
        doc,
        status="draft",
        signers=[],
        signed_at=None,
        legal_hold=False,
        versions=doc.versions[:1],
        version=1,
    )
    history.document(scratch, "document.created", owner, doc.created_at)
    if final.legal_hold:
        scratch.legal_hold = True
        history.document(scratch, "document.legal_hold_placed", SYSTEM, doc.created_at)
    for wf in workflows:
        _replay_workflow(history, wf, scratch, owner)
    if final.signed_at is None:
        return
    signer_actor = final.signers[-1] if final.signers else owner
    scratch.signers, scratch.signed_at = list(final.signers), final.signed_at
    scratch.status = "signed"
    history.document(scratch, "document.signed", signer_actor, final.signed_at)
    for signer in final.signers:
        data = views.signature_completed(scratch, signer)
        history.add(
            final.signed_at,
            doc.region,
            "signature.completed",
            signer_actor,
            doc.id,
            (doc.vault_id,),
            data,
        )
    if final.status == "locked":
        scratch.status = "locked"
        locked_at = min(final.signed_at + vault.lock_after, reference)
        history.document(scratch, "document.locked", SYSTEM, locked_at)


def history(
    account_id: str,
    environment: str,
    seed: EnvironmentSeed,
    owner: str,
    reference: int,
    ids: IdFactory,
) -> dict[str, list[AuditEvent]]:
    """The seeded audit chain of each region, oldest first."""
    log = _History(owner)
    vaults = {v.id: v for v in seed.vaults}
    for vault in seed.vaults:
        creator = next((m.email for m in vault.members if m.role == "owner"), owner)
        log.add(
            vault.created_at,
            vault.region,
            "vault.created",
            creator,
            vault.id,
            (),
            views.vault_created(vault),
        )
    by_doc: dict[str, list[Workflow]] = {}
    for wf in seed.workflows:
        by_doc.setdefault(wf.document_id, []).append(wf)
    for doc in seed.documents:
        _replay_document(log, doc, by_doc.get(doc.id, []), vaults[doc.vault_id], reference)
    chains = {region: AuditChain() for region in REGIONS}
    for at, _, region, type, actor, resource_id, related, data in sorted(
        log.entries, key=lambda e: (e[0], e[1])
    ):
        chains[region].append(
            event_id=ids.new("evt_"),
            type=type,
            actor=actor,
            at=at,
            resource_id=resource_id,
            related=related,
            data=data,
        )
    return {region: chain.events for region, chain in chains.items()}


def load_world(world: World, store: Store) -> None:
    """Fill a new world from the seed: objects, audit history and lock timers."""
    key = (world.account.id, world.environment)
    seed = store.seed.environments.get(key)
    if seed is None:
        return
    pristine = _seeded(store, key, seed)
    pristine.install(world)
    data = pristine.seed
    reference = (
        store.now()
        if store.seed.reference_time is None
        else store.seed.reference_time + store.shift
    )
    chains = store.history_cache.get(key)
    if chains is None:
        owner = world.account.users[0].email if world.account.users else SYSTEM
        ids = IdFactory(store.random_seed, f"history/{key[0]}/{key[1]}")
        chains = history(key[0], key[1], data, owner, reference, ids)
        store.history_cache[key] = chains
    for region, events in chains.items():
        world.regions[region].audit = AuditChain(events)
    for due, doc in pristine.locks:
        documents.schedule_lock(world, doc, due)
