"""Filling a world from the seed: the seeded objects (shifted once per store and shared by
its worlds, which copy one before changing it), their lock timers, and the audit history that
tells how they came to be (`history.SeededHistory`, made once per (account, environment) on
first need and shared by every reset).
"""

from __future__ import annotations

import dataclasses

from mockserver.audit.chain import SYSTEM, AuditChain, SeededLog
from mockserver.core.ids import IdFactory
from mockserver.domain import documents
from mockserver.domain.models import (
    REGIONS,
    EnvironmentSeed,
    copy_document,
    copy_vault,
    copy_workflow,
)
from mockserver.domain.store import Pristine, Store, World
from mockserver.seeds import cache as seed_cache
from mockserver.seeds.history import SeededHistory


def shifted(seed: EnvironmentSeed, shift: int) -> EnvironmentSeed:
    """Copies of a seed's objects with every time moved by `shift` seconds."""
    return EnvironmentSeed(
        vaults=[copy_vault(v, shift) for v in seed.vaults],
        documents=[copy_document(d, shift) for d in seed.documents],
        workflows=[copy_workflow(w, shift) for w in seed.workflows],
        webhook_endpoints=[
            dataclasses.replace(e, created_at=e.created_at + shift) for e in seed.webhook_endpoints
        ],
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


def load_world(world: World, store: Store) -> None:
    """Fill a new world from the seed: objects, audit history and lock timers. A world a reset
    kept (still as the seed built it, `World.as_built`) only gets its lock timers back."""
    key = (world.account.id, world.environment)
    seed = store.seed.environments.get(key)
    if seed is None:
        return
    pristine = _seeded(store, key, seed)
    if world.pristine is not None:
        for data in world.regions.values():
            data.pages.clear()
        _lock_timers(world, pristine)
        return
    pristine.install(world)
    reference = (
        store.now()
        if store.seed.reference_time is None
        else store.seed.reference_time + store.shift
    )
    owner = world.account.users[0].email if world.account.users else SYSTEM
    past = seeded_history(store, key, owner, reference)
    for region in REGIONS:
        world.regions[region].audit = AuditChain(RegionHistory(past, region))
    _lock_timers(world, pristine)


def seeded_history(store: Store, key: tuple[str, str], owner: str, reference: int) -> SeededHistory:
    """The seeded audit history of (account, environment), made on first need with the owner
    and reference time of then, and shared by every reset (and every restored snapshot). One
    asked for with another owner or reference time (a snapshot from a server that built its
    history at another moment) is made apart, and not kept."""
    past = store.history_cache.get(key)
    if past is None or (past.owner, past.reference) != (owner, reference):
        seed = store.seed.environments[key]
        ids = IdFactory(store.random_seed, f"history/{key[0]}/{key[1]}")
        cache = None
        if store.seed.digest is not None and seed_cache.switched_on():
            parts = (*key, store.shift, owner, reference, store.random_seed)
            cache = seed_cache.history_path(store.seed.digest, parts)
        made = SeededHistory(seed, store.shift, owner, reference, ids, cache)
        if past is None:
            store.history_cache[key] = made
        past = made
    return past


def pristine_of(store: Store, key: tuple[str, str]) -> Pristine:
    """The shared seeded objects of (account, environment), built on first need."""
    return _seeded(store, key, store.seed.environments[key])


class RegionHistory:
    """A chain's seeded part, made on first need: one region of a world's seeded history (an
    object rather than a closure, so that a snapshot can save the chain)."""

    __slots__ = ("history", "region")

    def __init__(self, history: SeededHistory, region: str) -> None:
        self.history = history
        self.region = region

    def __call__(self) -> SeededLog:
        return self.history.log(self.region)


def _lock_timers(world: World, pristine: Pristine) -> None:
    for due, doc in pristine.locks:
        documents.schedule_lock(world, doc, due)
