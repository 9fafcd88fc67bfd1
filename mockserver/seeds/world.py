"""Filling a world from the seed: the seeded objects (shifted once per store and shared by
its worlds, which copy one before changing it), their lock timers, and the audit history that
tells how they came to be (`history.SeededHistory`, made once per (account, environment) on
first need and shared by every reset).
"""

from __future__ import annotations

import functools

from mockserver.audit.chain import SYSTEM, AuditChain
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
    past = store.history_cache.get(key)
    if past is None:  # made on first need, with the owner and reference time of now
        owner = world.account.users[0].email if world.account.users else SYSTEM
        ids = IdFactory(store.random_seed, f"history/{key[0]}/{key[1]}")
        cache = None
        if store.seed.digest is not None and seed_cache.switched_on():
            parts = (*key, store.shift, owner, reference, store.random_seed)
            cache = seed_cache.history_path(store.seed.digest, parts)
        past = SeededHistory(seed, store.shift, owner, reference, ids, cache)
        store.history_cache[key] = past
    for region in REGIONS:
        world.regions[region].audit = AuditChain(functools.partial(past.log, region))
    _lock_timers(world, pristine)


def _lock_timers(world: World, pristine: Pristine) -> None:
    for due, doc in pristine.locks:
        documents.schedule_lock(world, doc, due)
