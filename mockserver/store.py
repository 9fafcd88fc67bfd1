"""All the state of one mock instance, partitioned by (account, environment) and region.

`Store` holds the credentials and builds a `World` per (account, environment) on first use,
from copies of the seed's objects, so a reset is just dropping the worlds. Within a world,
`RegionData` keeps what lives in one data centre: residency is a lookup in the routed region.
"""

from __future__ import annotations

import dataclasses
import hashlib

from mockserver.clock import Clock
from mockserver.domain.models import (
    REGIONS,
    Account,
    ApiKey,
    Document,
    EnvironmentSeed,
    Limits,
    SeedData,
    Vault,
)
from mockserver.domain.oauth import OAuthState
from mockserver.domain.pagination import CursorCodec
from mockserver.ids import IdFactory


class RegionData:
    """Vaults and documents of one region, with the indexes lists need."""

    __slots__ = ("doc_order", "docs_by_vault", "documents", "vault_order", "vaults")

    def __init__(self) -> None:
        self.vaults: dict[str, Vault] = {}
        self.vault_order: list[Vault] = []
        self.documents: dict[str, Document] = {}
        self.doc_order: list[Document] = []  # ascending seq; soft-deleted ones stay
        self.docs_by_vault: dict[str, list[Document]] = {}


class World:
    """Everything one (account, environment) owns."""

    __slots__ = ("_seq", "account", "environment", "ids", "regions")

    def __init__(self, account: Account, environment: str, ids: IdFactory) -> None:
        self.account = account
        self.environment = environment
        self.ids = ids
        self.regions: dict[str, RegionData] = {name: RegionData() for name in REGIONS}
        self._seq = 0

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def add_vault(self, vault: Vault) -> Vault:
        vault.seq = self.next_seq()
        region = self.regions[vault.region]
        region.vaults[vault.id] = vault
        region.vault_order.append(vault)
        region.docs_by_vault[vault.id] = []
        return vault

    def add_document(self, doc: Document) -> Document:
        doc.seq = self.next_seq()
        region = self.regions[doc.region]
        region.documents[doc.id] = doc
        region.doc_order.append(doc)
        region.docs_by_vault[doc.vault_id].append(doc)
        return doc

    def load(self, seed: EnvironmentSeed) -> None:
        """Add copies of a seed's objects, so the seed itself stays pristine."""
        for vault in seed.vaults:
            self.add_vault(
                dataclasses.replace(vault, members=[dataclasses.replace(m) for m in vault.members])
            )
        for doc in seed.documents:
            self.add_document(
                dataclasses.replace(
                    doc,
                    metadata=dict(doc.metadata),
                    versions=list(doc.versions),
                    signers=list(doc.signers),
                )
            )


class Store:
    """Credentials, accounts and worlds of one server; `reset` returns it to the seed."""

    def __init__(self, seed: SeedData, clock: Clock, random_seed: int) -> None:
        self.seed = seed
        self.clock = clock
        self.random_seed = random_seed
        self.limits: Limits = seed.limits
        self.accounts: dict[str, Account] = {}
        self.keys: dict[str, ApiKey] = {}
        self.worlds: dict[tuple[str, str], World] = {}
        self.oauth = OAuthState(seed.oauth_clients, random_seed)  # codes and tokens
        self.request_ids = IdFactory(random_seed, "requests")
        self.cursors = CursorCodec(hashlib.sha256(f"cursor:{random_seed}".encode()).digest())
        self.reset()

    def reset(self) -> None:
        """Back to the seed: credentials as seeded, worlds rebuilt on next use, fresh streams,
        and the clock at its start."""
        self.clock.reset()
        self.accounts = dict(self.seed.accounts)
        self.keys = {k: dataclasses.replace(v) for k, v in self.seed.keys.items()}
        self.worlds = {}
        self.oauth = OAuthState(self.seed.oauth_clients, self.random_seed)
        self.request_ids = IdFactory(self.random_seed, "requests")

    def world(self, account_id: str, environment: str) -> World:
        """The world of (account, environment), built from the seed on first use."""
        key = (account_id, environment)
        world = self.worlds.get(key)
        if world is None:
            ids = IdFactory(self.random_seed, f"{account_id}/{environment}")
            world = World(self.accounts[account_id], environment, ids)
            seed = self.seed.environments.get(key)
            if seed is not None:
                world.load(seed)
            self.worlds[key] = world
        return world

    def now(self) -> int:
        """The mock clock's time in whole seconds, as resources record it."""
        return int(self.clock.now())
