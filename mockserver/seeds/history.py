"""The synthesized audit history of a seeded world: how its objects came to be.

Each seeded object's life is replayed on scratch copies in time order (created, workflow steps,
signing, locking) and the views are snapshotted at every step, so the chain reads as if the API
had been used. The history is a pure function of the seed, the store's shift, its reference time
and random seed, so it is made once per (account, environment), on first need, and shared by
every reset. Only its columns and hashes are kept (`SeededLog`): the `data` of an event is
replayed again, from the pristine seed, when its bytes are served.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
from array import array
from pathlib import Path
from typing import Any

from mockserver.audit.log import SeededLog
from mockserver.core import memory
from mockserver.core.ids import IdFactory
from mockserver.domain import views
from mockserver.domain.models import (
    REGIONS,
    Document,
    DocumentVersion,
    EnvironmentSeed,
    Vault,
    Workflow,
    WorkflowStep,
    copy_step,
)
from mockserver.seeds import cache as seed_cache

SYSTEM = "system"
# (at, region, type, actor, resource id, related ids, data)
Entry = tuple[int, str, str, str, str, tuple[str, ...], dict[str, Any]]
REPLAYS_KEPT = 4096  # documents whose replayed events are kept for serving their bytes
COLLECT_AFTER = 50_000  # events: below that, what a collection hands back is not worth it


class _Replay:
    """Collects the entries of one object's life."""

    def __init__(self, owner: str, shift: int) -> None:
        self.owner = owner
        self.shift = shift
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
        self.entries.append((at, region, type, actor, resource_id, related, data))

    def document(self, doc: Document, type: str, actor: str, at: int) -> None:
        self.add(at, doc.region, type, actor, doc.id, (doc.vault_id,), views.document_detail(doc))

    def workflow(self, wf: Workflow, doc: Document, type: str, actor: str, at: int) -> None:
        related = (doc.id, doc.vault_id)
        self.add(at, wf.region, type, actor, wf.id, related, views.workflow_detail(wf))


def _replay_workflow(replay: _Replay, wf: Workflow, doc: Document, actor: str) -> None:
    shift = replay.shift
    created = wf.created_at + shift
    scratch = dataclasses.replace(
        wf,
        status="in_progress",
        current_step=1,
        created_at=created,
        last_decision=None,
        steps=[WorkflowStep(s.assignee, s.condition) for s in wf.steps],
    )
    doc.status = "in_review"
    decided = [(i, s) for i, s in enumerate(wf.steps) if s.decision is not None]
    # Steps skipped before the first real decision were skipped at creation.
    for i, step in decided:
        if step.decision != "skipped":
            break
        scratch.steps[i] = copy_step(step, shift)
        scratch.current_step = i + 2
    replay.workflow(scratch, doc, "workflow.created", actor, created)
    replay.document(doc, "document.in_review", actor, created)
    for i, step in decided:
        if scratch.steps[i].decision is not None:
            continue
        assert step.decided_at is not None
        at = step.decided_at + shift
        scratch.steps[i] = copy_step(step, shift)
        scratch.current_step = min(i + 2, len(wf.steps))
        if step.decision == "skipped":
            continue
        scratch.last_decision = (step.assignee, step.decision or "")
        if step.decision == "reject":
            scratch.status = "rejected"
            scratch.current_step = i + 1
            replay.workflow(scratch, doc, "workflow.rejected", step.assignee, at)
            doc.status = "draft"
            replay.document(doc, "document.draft", step.assignee, at)
        elif wf.status == "completed" and all(s.decision for s in wf.steps[i + 1 :]):
            scratch.status = "completed"
            replay.workflow(scratch, doc, "workflow.completed", step.assignee, at)
        else:
            replay.workflow(scratch, doc, "workflow.advanced", step.assignee, at)


def _replay_document(
    replay: _Replay, doc: Document, workflows: list[Workflow], vault: Vault, reference: int
) -> None:
    """`doc` is the pristine seeded document (times not shifted)."""
    shift = replay.shift
    final = doc
    owner = next((m.email for m in vault.members if m.role == "owner"), replay.owner)
    created = doc.created_at + shift
    scratch = dataclasses.replace(
        doc,
        status="draft",
        created_at=created,
        signers=[],
        signed_at=None,
        legal_hold=False,
        versions=[
            DocumentVersion(v.version, v.sha256, v.created_at + shift) for v in doc.versions[:1]
        ],
        version=1,
    )
    replay.document(scratch, "document.created", owner, created)
    if final.legal_hold:
        scratch.legal_hold = True
        replay.document(scratch, "document.legal_hold_placed", SYSTEM, created)
    for wf in workflows:
        _replay_workflow(replay, wf, scratch, owner)
    if final.signed_at is None:
        return
    signed_at = final.signed_at + shift
    signer_actor = final.signers[-1] if final.signers else owner
    scratch.signers, scratch.signed_at = list(final.signers), signed_at
    scratch.status = "signed"
    replay.document(scratch, "document.signed", signer_actor, signed_at)
    for signer in final.signers:
        data = views.signature_completed(scratch, signer)
        replay.add(
            signed_at,
            doc.region,
            "signature.completed",
            signer_actor,
            doc.id,
            (doc.vault_id,),
            data,
        )
    if final.status == "locked":
        scratch.status = "locked"
        locked_at = min(signed_at + vault.lock_after, reference)
        replay.document(scratch, "document.locked", SYSTEM, locked_at)


class SeededHistory:
    """The seeded audit chain of each region of one (account, environment), made on first
    need. `seed` is the pristine seed (never mutated); `shift` moves its times to the clock."""

    def __init__(
        self,
        seed: EnvironmentSeed,
        shift: int,
        owner: str,
        reference: int,
        ids: IdFactory,
        cache: Path | None = None,
    ) -> None:
        self.seed = seed
        self.cache = cache  # where the made columns are kept between runs (`seed_cache`)
        self.shift = shift
        self.owner = owner
        self.reference = reference  # fixed when the world is first built, as locks fell due
        self._ids = ids
        self._logs: dict[str, SeededLog] | None = None
        self._sources: dict[str, array[int]] = {}  # position -> the object whose life it is
        self._steps: dict[str, array[int]] = {}  # position -> which event of that life
        self._vaults = {v.id: v for v in seed.vaults}
        self._workflows: dict[str, list[Workflow]] | None = None  # by document, on first need
        self.entries = functools.lru_cache(maxsize=REPLAYS_KEPT)(self._entries)

    def built_logs(self) -> dict[str, SeededLog]:
        """The region logs made so far (none before the first `log`)."""
        return self._logs or {}

    def log(self, region: str) -> SeededLog:
        """The seeded part of `region`'s chain (synthesizing the whole history once)."""
        if self._logs is None:
            with memory.collector_paused():  # a few million short-lived containers
                self._logs = self._cached() or self._build()
            if sum(len(log) for log in self._logs.values()) >= COLLECT_AFTER:
                # The scratch of the build (or of reading the cache) is freed, but malloc
                # keeps the pages under the survivors until asked to give them back.
                memory.release_free_memory()
        return self._logs[region]

    def _cached(self) -> dict[str, SeededLog] | None:
        """The logs kept by an earlier run with this seed, code and clock, if any."""
        objects = len(self.seed.vaults) + len(self.seed.documents)
        kept = seed_cache.load_history(self.cache, objects) if self.cache is not None else None
        if kept is None:
            return None
        try:
            logs = {
                region: SeededLog.restore(functools.partial(self._data, region), kept[region][0])
                for region in REGIONS
            }
        except ValueError:
            return None
        for region in REGIONS:
            _, self._sources[region], self._steps[region] = kept[region]
        return logs

    def _keep(self, logs: dict[str, SeededLog]) -> None:
        if self.cache is not None:
            state = {r: (logs[r].state(), self._sources[r], self._steps[r]) for r in REGIONS}
            seed_cache.store_history(self.cache, state)

    def _entries(self, source: int) -> list[Entry]:
        """The events of one object's life: vaults are sources 0.., then documents."""
        replay = _Replay(self.owner, self.shift)
        vaults = self.seed.vaults
        if source < len(vaults):
            vault = vaults[source]
            creator = next((m.email for m in vault.members if m.role == "owner"), self.owner)
            shifted = dataclasses.replace(vault, created_at=vault.created_at + self.shift)
            data = views.vault_created(shifted)
            replay.add(
                shifted.created_at, vault.region, "vault.created", creator, vault.id, (), data
            )
        else:
            doc = self.seed.documents[source - len(vaults)]
            if self._workflows is None:
                self._workflows = {}
                for wf in self.seed.workflows:
                    self._workflows.setdefault(wf.document_id, []).append(wf)
            workflows = self._workflows.get(doc.id, [])
            _replay_document(replay, doc, workflows, self._vaults[doc.vault_id], self.reference)
        return replay.entries

    def _build(self) -> dict[str, SeededLog]:
        entries: list[Entry | None] = []
        sources, steps = array("I"), array("I")  # entry -> its object, which event of it
        for source in range(len(self.seed.vaults) + len(self.seed.documents)):
            for step, entry in enumerate(self._entries(source)):
                entries.append(entry)
                sources.append(source)
                steps.append(step)
        # In time order, ties in replay order: one int a key sorts faster than tuples.
        order = sorted((entry[0] << 32) | n for n, entry in enumerate(entries) if entry)
        ids = self._ids.many("evt_", len(order))
        logs = {region: SeededLog(functools.partial(self._data, region)) for region in REGIONS}
        for region in REGIONS:
            self._sources[region] = array("I")
            self._steps[region] = array("I")
        for key, event_id in zip(order, ids, strict=True):
            n = key & 0xFFFFFFFF
            item, entries[n] = entries[n], None  # drop the snapshot once hashed
            assert item is not None
            at, region, type, actor, resource_id, related, data = item
            logs[region].add(event_id, type, actor, at, resource_id, related, data)
            self._sources[region].append(sources[n])
            self._steps[region].append(steps[n])
        count = len(ids)
        del entries, order, ids
        # What outlives the scratch snapshots keeps the memory pages it sits on from the
        # system: the interpreter's free lists, which a full collection empties (it finds no
        # garbage, and a serving process has frozen the rest, so it is cheap).
        for log in logs.values():
            log.seal()  # the index, and the related ids freed
        if count >= COLLECT_AFTER:
            gc.collect()
        self._keep(logs)
        return logs

    def _data(self, region: str, position: int) -> dict[str, Any]:
        return self.entries(self._sources[region][position])[self._steps[region][position]][6]
