"""Filling a world from the seed: shifted copies of the seeded objects, their lock timers,
and the audit history that tells how they came to be (`history.SeededHistory`, made once per
(account, environment) on first need and shared by every reset).
"""

from __future__ import annotations

import functools

from mockserver.ids import IdFactory
from mockserver.store import Store, World

from . import documents
from .audit import SYSTEM, AuditChain
from .history import SeededHistory
from .models import (
    REGIONS,
    Document,
    DocumentVersion,
    EnvironmentSeed,
    Member,
    Vault,
    Workflow,
    WorkflowStep,
)

# A reset rebuilds a world from these copies, so they are written out field by field: three
# times faster than dataclasses.replace, which is most of a 100k-document rebuild. A test
# (tests/test_seeding_copies.py) fails if a model gains a field these do not carry over.


def _shift_vault(vault: Vault, shift: int) -> Vault:
    return Vault(
        id=vault.id,
        name=vault.name,
        region=vault.region,
        created_at=vault.created_at + shift,
        members=[Member(m.email, m.role) for m in vault.members],
        lock_after=vault.lock_after,
        seq=vault.seq,
    )


def _shift_document(doc: Document, shift: int) -> Document:
    return Document(
        id=doc.id,
        vault_id=doc.vault_id,
        region=doc.region,
        title=doc.title,
        status=doc.status,
        created_at=doc.created_at + shift,
        sha256=doc.sha256,
        metadata=dict(doc.metadata),
        version=doc.version,
        versions=[DocumentVersion(v.version, v.sha256, v.created_at + shift) for v in doc.versions],
        signers=list(doc.signers),
        legal_hold=doc.legal_hold,
        signed_at=None if doc.signed_at is None else doc.signed_at + shift,
        deleted=doc.deleted,
        seq=doc.seq,
    )


def _shift_step(step: WorkflowStep, shift: int) -> WorkflowStep:
    return WorkflowStep(
        assignee=step.assignee,
        condition=step.condition,
        decision=step.decision,
        decided_at=None if step.decided_at is None else step.decided_at + shift,
        comment=step.comment,
    )


def _shift_workflow(workflow: Workflow, shift: int) -> Workflow:
    return Workflow(
        id=workflow.id,
        document_id=workflow.document_id,
        region=workflow.region,
        status=workflow.status,
        current_step=workflow.current_step,
        created_at=workflow.created_at + shift,
        steps=[_shift_step(s, shift) for s in workflow.steps],
        last_decision=workflow.last_decision,
        seq=workflow.seq,
    )


def shifted(seed: EnvironmentSeed, shift: int) -> EnvironmentSeed:
    """Copies of a seed's objects with every time moved by `shift` seconds."""
    return EnvironmentSeed(
        vaults=[_shift_vault(v, shift) for v in seed.vaults],
        documents=[_shift_document(d, shift) for d in seed.documents],
        workflows=[_shift_workflow(w, shift) for w in seed.workflows],
    )


def load_world(world: World, store: Store) -> None:
    """Fill a new world from the seed: objects, audit history and lock timers."""
    key = (world.account.id, world.environment)
    seed = store.seed.environments.get(key)
    if seed is None:
        return
    data = shifted(seed, store.shift)
    reference = (
        store.now()
        if store.seed.reference_time is None
        else store.seed.reference_time + store.shift
    )
    for vault in data.vaults:
        world.add_vault(vault)
    for doc in data.documents:
        world.add_document(doc)
    for wf in data.workflows:
        world.add_workflow(wf)
    past = store.history_cache.get(key)
    if past is None:  # made on first need, with the owner and reference time of now
        owner = world.account.users[0].email if world.account.users else SYSTEM
        ids = IdFactory(store.random_seed, f"history/{key[0]}/{key[1]}")
        past = SeededHistory(seed, store.shift, owner, reference, ids)
        store.history_cache[key] = past
    for region in REGIONS:
        world.regions[region].audit = AuditChain(functools.partial(past.log, region))
    for doc in data.documents:
        if doc.status == "signed" and not doc.deleted:
            documents.schedule_lock(world, doc)
