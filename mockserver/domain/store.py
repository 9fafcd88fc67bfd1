"""All the state of one mock instance, partitioned by (account, environment) and region.

`Store` holds the credentials, the scheduler and builds a `World` per (account, environment) on
first use from the seed, so a reset is just dropping the worlds. Worlds share the seeded objects
(`Pristine`, built once per store) and copy one only before its first change
(`World.writable_document`, `writable_workflow`), so a world costs its indexes, not its objects.
Within a world, `RegionData` keeps what lives in one data centre, its audit chain included:
residency is a lookup in the routed region. Seeded times are shifted so the seed's reference
time is the clock's start.
"""

from __future__ import annotations

import dataclasses
import hashlib
from bisect import bisect_left
from collections.abc import Callable, Mapping
from typing import Any

from mockserver.audit.chain import AuditChain
from mockserver.audit.log import AuditEvent
from mockserver.core.clock import Clock, parse_ts
from mockserver.core.config import DEFAULT_START_TIME
from mockserver.core.cursors import CursorCodec
from mockserver.core.ids import IdFactory
from mockserver.core.scheduler import Scheduler
from mockserver.domain.auth import Principal, bearer_token, principal_for_key
from mockserver.domain.idempotency import IdempotencyStore
from mockserver.domain.models import (
    REGIONS,
    Account,
    ApiKey,
    Document,
    EnvironmentSeed,
    ExportJob,
    Limits,
    SeedData,
    Vault,
    Workflow,
    copy_document,
    copy_workflow,
)
from mockserver.domain.oauth_state import TOKEN_PREFIX, OAuthState, principal_for_token
from mockserver.domain.ratelimit import RateLimiter

Listener = Callable[["World", AuditEvent, Mapping[str, Any]], None]


class RegionData:
    """Vaults, documents, workflows and the audit chain of one region, with list indexes."""

    __slots__ = (
        "audit",
        "doc_order",
        "docs_by_vault",
        "documents",
        "pages",
        "vault_order",
        "vaults",
        "workflows",
    )

    def __init__(self) -> None:
        self.vaults: dict[str, Vault] = {}
        self.vault_order: list[Vault] = []
        self.documents: dict[str, Document] = {}  # one entry per document
        self.doc_order: list[Document] = []  # ascending seq; soft-deleted ones stay
        self.docs_by_vault: dict[str, list[Document]] = {}
        self.workflows: dict[str, Workflow] = {}
        self.audit = AuditChain()
        # Rendered document pages by query: dropped whenever a document of the region is added
        # or about to change (`index_document`, `World.writable_document`).
        self.pages: dict[tuple[str | None, str | None, int, int | None], bytes] = {}

    def index_vault(self, vault: Vault) -> None:
        self.vaults[vault.id] = vault
        self.vault_order.append(vault)
        self.docs_by_vault[vault.id] = []

    def index_document(self, doc: Document) -> None:
        self.pages.clear()
        self.documents[doc.id] = doc
        self.doc_order.append(doc)
        self.docs_by_vault[doc.vault_id].append(doc)


def _swap(items: list[Document], old: Document, new: Document) -> None:
    """Put `new` where `old` is in a list in ascending seq."""
    index = bisect_left(items, old.seq, key=lambda d: d.seq)
    while items[index] is not old:
        index += 1
    items[index] = new


class Pristine:
    """The seeded objects of one (account, environment), indexed as a world indexes them. Never
    changed once built: worlds copy these indexes and share the objects."""

    __slots__ = ("active_workflows", "locks", "regions", "seed", "seq")

    def __init__(self, seed: EnvironmentSeed) -> None:
        self.seed = seed  # the objects, in seed order
        self.regions: dict[str, RegionData] = {name: RegionData() for name in REGIONS}
        self.active_workflows: dict[str, str] = {}
        self.seq = 0
        self._add(seed.vaults, seed.documents, seed.workflows)
        # (due, document) of each signed document's lock timer, by due; a stable sort keeps
        # the file order of equal dues, the order they were scheduled (and run) in before.
        # Scheduled in due order, each timer joins the scheduler's heap in one comparison.
        self.locks = sorted(
            (
                (doc.signed_at + self.regions[doc.region].vaults[doc.vault_id].lock_after, doc)
                for doc in seed.documents
                if doc.status == "signed" and not doc.deleted and doc.signed_at is not None
            ),
            key=lambda lock: lock[0],
        )

    def install(self, world: World) -> None:
        """Give a new world these objects: its own indexes, the objects shared."""
        for name, source in self.regions.items():
            target = world.regions[name]
            target.vaults = dict(source.vaults)
            target.vault_order = list(source.vault_order)
            target.documents = source.documents.copy()
            target.doc_order = list(source.doc_order)
            target.docs_by_vault = {k: list(v) for k, v in source.docs_by_vault.items()}
            target.workflows = dict(source.workflows)
        world.active_workflows = dict(self.active_workflows)
        world._seq = self.seq
        world.pristine = self

    def _add(self, vaults: list[Vault], docs: list[Document], workflows: list[Workflow]) -> None:
        """Index seeded objects in the order a world adds them, numbering them as it would."""
        for vault in vaults:
            self.seq += 1
            vault.seq = self.seq
            self.regions[vault.region].index_vault(vault)
        for doc in docs:
            self.seq += 1
            doc.seq = self.seq
            self.regions[doc.region].index_document(doc)
        for workflow in workflows:
            self.seq += 1
            workflow.seq = self.seq
            self.regions[workflow.region].workflows[workflow.id] = workflow
            if workflow.status == "in_progress":
                self.active_workflows[workflow.document_id] = workflow.id


class World:
    """Everything one (account, environment) owns."""

    __slots__ = (
        "_changed",
        "_seq",
        "account",
        "active_workflows",
        "environment",
        "exports",
        "ids",
        "listeners",
        "pristine",
        "regions",
        "scheduler",
    )

    def __init__(
        self,
        account: Account,
        environment: str,
        ids: IdFactory,
        scheduler: Scheduler,
        listeners: list[Listener],
    ) -> None:
        self.account = account
        self.environment = environment
        self.ids = ids
        self.scheduler = scheduler
        self.listeners = listeners
        self.regions: dict[str, RegionData] = {name: RegionData() for name in REGIONS}
        self.exports: dict[str, ExportJob] = {}
        self.active_workflows: dict[str, str] = {}  # document id -> in_progress workflow id
        self._seq = 0
        self._changed = False  # a seeded object was copied to change (`writable_*`)
        self.pristine: Pristine | None = None  # the seeded objects it shares, if any

    @property
    def home(self) -> RegionData:
        """The account's default region: account-level resources write their audit here."""
        return self.regions[self.account.default_region]

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def new_id(self, prefix: str) -> str:
        """A new id from the world's stream for a vault, document or workflow, never one the
        world holds already: a seed may hold ids of this very stream (a sandbox exported as a
        seed, `GET /_mock/seed`, has the ids its requests drew)."""
        ident = self.ids.new(prefix)
        if self.pristine is not None:
            while self.holds(ident):
                ident = self.ids.new(prefix)
        return ident

    def holds(self, ident: str) -> bool:
        """Whether a vault, document (deleted ones too) or workflow of any region has `ident`."""
        for data in self.regions.values():
            if ident in data.vaults or ident in data.documents or ident in data.workflows:
                return True
        return False

    def writable_document(self, doc: Document) -> Document:
        """The world's own copy of `doc`, to change: a shared seeded document is copied into
        every index first. Its rendered JSON is cleared, as the caller is about to change it,
        and so are the region's rendered pages."""
        self._changed = True
        region = self.regions[doc.region]
        region.pages.clear()
        doc = region.documents[doc.id]  # the current object, if the caller held an old one
        if (
            self.pristine is not None
            and self.pristine.regions[doc.region].documents.get(doc.id) is doc
        ):
            copy = copy_document(doc)
            region.documents[doc.id] = copy
            _swap(region.doc_order, doc, copy)
            _swap(region.docs_by_vault[doc.vault_id], doc, copy)
            return copy
        doc.summary_json = doc.detail_json = None
        return doc

    def writable_workflow(self, workflow: Workflow) -> Workflow:
        """The world's own copy of `workflow`, to change (a shared seeded one is copied)."""
        self._changed = True
        workflows = self.regions[workflow.region].workflows
        workflow = workflows[workflow.id]
        shared = self.pristine is not None and (
            self.pristine.regions[workflow.region].workflows.get(workflow.id) is workflow
        )
        if shared:
            workflow = workflows[workflow.id] = copy_workflow(workflow)
        return workflow

    def as_built(self) -> bool:
        """Whether the world is still what its seed built: nothing added, changed, audited or
        exported, and no id drawn. A reset keeps such a world rather than building it again."""
        pristine = self.pristine
        return (
            pristine is not None
            and not self._changed
            and self._seq == pristine.seq
            and self.ids.fresh
            and not self.exports
            and self.active_workflows == pristine.active_workflows
            and not any(region.audit.written for region in self.regions.values())
        )

    def add_vault(self, vault: Vault) -> Vault:
        vault.seq = self.next_seq()
        self.regions[vault.region].index_vault(vault)
        return vault

    def add_document(self, doc: Document) -> Document:
        doc.seq = self.next_seq()
        self.regions[doc.region].index_document(doc)
        return doc

    def add_workflow(self, workflow: Workflow) -> Workflow:
        workflow.seq = self.next_seq()
        self.regions[workflow.region].workflows[workflow.id] = workflow
        if workflow.status == "in_progress":
            self.active_workflows[workflow.document_id] = workflow.id
        return workflow

    def record(
        self,
        region: str,
        type: str,
        actor: str,
        at: int,
        resource_id: str,
        related: tuple[str, ...],
        data: Mapping[str, Any],
    ) -> AuditEvent:
        """Write the one audit event of an action to the region's chain and publish it."""
        event = self.regions[region].audit.append(
            event_id=self.ids.new("evt_"),
            type=type,
            actor=actor,
            at=at,
            resource_id=resource_id,
            related=related,
            data=data,
        )
        for listener in self.listeners:
            listener(self, event, data)
        return event


WorldLoader = Callable[[World, "Store"], None]


class Store:
    """Credentials, accounts, timers and worlds of one server; `reset` returns it to the seed."""

    def __init__(
        self,
        seed: SeedData,
        clock: Clock,
        random_seed: int,
        loader: WorldLoader | None = None,
        streams: str = "",
    ) -> None:
        self.seed = seed
        # Names the store's own id streams (request ids): an account's sandbox draws its
        # request ids from a stream of its own, beside the server's.
        self.streams = streams
        self.clock = clock
        self.random_seed = random_seed
        self.limits: Limits = seed.limits
        reference = seed.reference_time
        if reference is None:
            reference = int(parse_ts(DEFAULT_START_TIME))
        self.start = int(clock.now())  # where the seed's reference time lands
        self.shift = self.start - reference  # added to every seeded time
        self.secret = hashlib.sha256(f"mockserver:{random_seed}".encode()).digest()
        self.cursors = CursorCodec(hashlib.sha256(b"cursor:" + self.secret).digest())
        self.scheduler = Scheduler(clock)
        self.listeners: list[Listener] = []
        self.reset_hooks: list[Callable[[], None]] = []  # state kept beside the store (webhooks)
        self.loader = loader  # fills a new world from the seed
        self.export_worlds: dict[str, World] = {}  # export job id -> its world
        self.history_cache: dict[tuple[str, str], Any] = {}  # immutable seeded audit chains
        self.pristine: dict[tuple[str, str], Pristine] = {}  # seeded objects, shared by worlds
        self.accounts: dict[str, Account] = {}
        self.keys: dict[str, ApiKey] = {}
        self.worlds: dict[tuple[str, str], World] = {}
        self.kept: dict[tuple[str, str], World] = {}  # as built, kept by a reset (see `world`)
        self.oauth = OAuthState(seed.oauth_clients, random_seed)  # codes and tokens
        self.request_ids = IdFactory(random_seed, f"{streams}requests")
        self.errors: list[BaseException] = []  # unexpected errors, for test harnesses to raise
        self.rate_limits = RateLimiter()  # `enforce` is set from Settings by the app factory
        self.idempotency = IdempotencyStore()
        self.reset()

    def reset(self) -> None:
        """Back to the seed: the clock at its start, credentials as seeded, no timers, worlds
        rebuilt on next use, fresh id streams, empty rate windows and idempotency records;
        then each reset hook. A world nothing changed since it was built (a test that only
        read) is kept for its next first use instead: building it again is most of what a
        reset costs such a test."""
        self.clock.reset()
        self.scheduler.clear()
        self.accounts = dict(self.seed.accounts)
        self.keys = self._seeded_keys()
        self.kept.update((key, world) for key, world in self.worlds.items() if world.as_built())
        self.worlds = {}
        self.export_worlds = {}
        self.oauth = OAuthState(self.seed.oauth_clients, self.random_seed)
        self.request_ids = IdFactory(self.random_seed, f"{self.streams}requests")
        self.rate_limits.clear()
        self.idempotency.clear()
        for hook in self.reset_hooks:
            hook()

    def use_seed(self, seed: SeedData) -> None:
        """Start again from another seed (a watched seed file saved): what was built from
        the old one is forgotten, then the store is reset to the new one."""
        self.seed = seed
        self.limits = seed.limits
        reference = seed.reference_time
        if reference is None:
            reference = int(parse_ts(DEFAULT_START_TIME))
        self.shift = self.start - reference
        self.kept = {}
        self.worlds = {}
        self.history_cache = {}
        self.pristine = {}
        self.keys = {}
        self.reset()

    def _seeded_keys(self) -> dict[str, ApiKey]:
        """The seed's keys as they were: today's, when no request, scenario or account changed
        any (then what knows a key object, the principal cache, stays good), else new copies."""
        seeded = self.seed.keys
        keys = self.keys
        if len(keys) == len(seeded) and all(keys.get(k) == key for k, key in seeded.items()):
            return keys
        return {k: dataclasses.replace(key) for k, key in seeded.items()}

    def world(self, account_id: str, environment: str) -> World:
        """The world of (account, environment), built from the seed on first use, or as a
        reset kept it (the loader gives it its timers back)."""
        key = (account_id, environment)
        world = self.worlds.get(key)
        if world is None:
            world = self.kept.pop(key, None)
            if world is None:
                ids = IdFactory(self.random_seed, f"{account_id}/{environment}")
                world = World(
                    self.accounts[account_id], environment, ids, self.scheduler, self.listeners
                )
            self.worlds[key] = world
            if self.loader is not None:
                self.loader(world, self)
            self.scheduler.run_due()  # seeded timers that fell due before first use
        return world

    def seeded_worlds(self) -> list[World]:
        """Every world the seed defines or that exists now (building seeded ones)."""
        keys = [
            *self.seed.environments,
            *(k for k in self.worlds if k not in self.seed.environments),
        ]
        return [self.world(*key) for key in keys if key[0] in self.accounts]

    def now(self) -> int:
        """The mock clock's time in whole seconds, as resources record it."""
        return int(self.clock.now())

    def principal_for(self, authorization: str | None) -> Principal:
        """The caller behind an `Authorization` header's bearer credential (an API key or an
        OAuth access token), or 401."""
        token = bearer_token(authorization)
        if token.startswith(TOKEN_PREFIX):
            return principal_for_token(self.oauth, token, self.now())
        return principal_for_key(self.keys, token)
