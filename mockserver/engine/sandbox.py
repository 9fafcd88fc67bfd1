"""The sandbox: one object that owns everything a mock instance is, with no HTTP in it.

`SandboxState.build(settings)` loads the seed (raising SeedError before anything runs) and wires the
parts together: the store (worlds, clock, scheduler, credentials, idempotency and rate
windows), the scenario engine, the webhook delivery engine, the request journal and the
account factory. `control` is the facade that every way of steering the sandbox calls: the
`/_mock` endpoints, the inspector, the CLI and the pytest plugin.

The server's sandbox also holds the sandboxes of the accounts made through the control plane
(`tenants`, engine/accounts): each is a `SandboxState` too (`for_account`), with no control plane
of its own, answering the requests that carry its keys.

The web layer (`mockserver.web.app.create_app`) builds one sandbox and serves it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager
from functools import partial
from pathlib import Path
from typing import Any

from mockserver.core.clock import Clock
from mockserver.core.config import Settings
from mockserver.core.errors import ScenarioError
from mockserver.core.ids import IdFactory
from mockserver.core.shipped import data_dir, default_seed_path
from mockserver.domain.accounts import AccountFactory, NewAccount
from mockserver.domain.auth import Principal
from mockserver.domain.models import ApiKey, SeedData
from mockserver.domain.store import Store, World
from mockserver.engine.accounts.sandboxes import AccountSandboxes
from mockserver.engine.clocks import make_clock
from mockserver.engine.control import Control
from mockserver.engine.control_plane.origin_guard import browser_guard
from mockserver.engine.durable.log import Durability, make_durable
from mockserver.engine.durable.state import open_state
from mockserver.engine.journal import AccountJournal, Journal, Observer
from mockserver.engine.live.files import LiveFiles
from mockserver.engine.live.folder import directory_files
from mockserver.engine.live.watch import watching
from mockserver.engine.request import Serve
from mockserver.engine.snapshots import Snapshots, shelves
from mockserver.scenarios.binding import DEFAULT_READONLY_KEY
from mockserver.scenarios.engine import ScenarioEngine
from mockserver.scenarios.loader import load_scenario, load_scenario_text
from mockserver.scenarios.model import DEFAULT_KEY
from mockserver.seeds.loader import load_seed
from mockserver.seeds.world import load_world
from mockserver.webhooks.delivery import DeliveryEngine


class SandboxState:
    """Worlds, clock, scheduler, scenarios, journal and webhooks of one mock instance."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        scenarios: ScenarioEngine,
        webhooks: DeliveryEngine,
        journal: Journal,
        *,
        account: str | None = None,
        outer_scenarios: ScenarioEngine | None = None,
        observers: list[Observer] | None = None,
        server: SandboxState | None = None,
    ) -> None:
        """`account`, `outer_scenarios`, `observers` and `server`: for an account's sandbox (see
        `for_account`), its account, the server's scenarios, the server's observers and the
        server's sandbox (whose limits on named snapshots it shares)."""
        self.settings = settings
        self.store = store
        self.scenarios = scenarios
        self.webhooks = webhooks
        self.journal = journal
        self.account = account  # the one account of an account's sandbox; None: the server's
        self.accounts = AccountFactory(store)
        self.snapshots = Snapshots(server=None if server is None else partial(shelves, server))
        control_plane = settings.admin and account is None
        # The sandboxes of the accounts made through the control plane (the server's only).
        self.tenants: AccountSandboxes[SandboxState] | None = None
        if account is None:
            self.tenants = AccountSandboxes(
                store, self.accounts, webhooks, journal, settings.start_time, self._account
            )
            tenants = self.tenants  # the server's rules apply to its accounts' requests too
            scenarios.account_keys = lambda: (key for t in tenants for key in t.keys())
        # The OpenAPI document of `GET /v1/openapi.json`, built on first request.
        self.openapi: bytes | None = None
        # The callers of the API keys its requests carried, by `Authorization` value, while
        # each key is unchanged (see `web/middleware/authentication.py`).
        self.principals: dict[bytes, tuple[ApiKey, Principal]] = {}
        # Refuses a `/_mock` request a web page could send (the server's, with no admin token).
        self.control_guard = browser_guard(settings.admin_token) if control_plane else None
        # The server's scenarios, in an account's sandbox: they apply after the account's own.
        self.outer_scenarios = outer_scenarios
        # The control plane's request ids: a stream of their own, so that steering the sandbox
        # (saving a snapshot, listing requests) changes nothing the sandbox holds. A reset
        # starts it again, as it does every stream.
        self.control_ids = self._control_ids()
        store.reset_hooks.append(self._restart_control_ids)
        # Told of every API request once answered (a request log); an account's sandbox
        # shares the server's list.
        self.observers: list[Observer] = [] if observers is None else observers
        self.durability: Durability | None = None
        # How the sandbox's own requests (a durable log's replay, a watched file's reload)
        # enter the app that serves it: set by that app once built (`web/app.py`).
        self.own_requests: Serve | None = None
        self.control = Control(self)
        # The watched seed and scenario files (`run --watch`), the server's sandbox only.
        self.live: LiveFiles | None = None

    def observe(self, observer: Observer) -> None:
        """Call `observer` with every API request (not `/_mock`) once answered, this sandbox's
        and its accounts' alike: what a request log is made of. It runs on the request's path,
        so it must be quick and must not raise."""
        self.observers.append(observer)  # the list its accounts' sandboxes share

    def _control_ids(self) -> IdFactory:
        store = self.store
        return IdFactory(store.random_seed, f"{store.streams}control-requests")

    def _restart_control_ids(self) -> None:
        self.control_ids = self._control_ids()

    @classmethod
    def build(
        cls, settings: Settings, seed: SeedData | None = None, *, clock: Clock | None = None
    ) -> SandboxState:
        """A sandbox from `settings` (and the seed, when already loaded; and its clock, when
        made already): a bad seed or scenario raises its load error before anything is built
        around it. With `settings.state_dir`, the sandbox is durable: its checkpoint is loaded
        now (StateDirError if it does not load), its log replayed once it runs."""
        if seed is None:
            seed = load_seed(settings.seed_path or default_seed_path())
        opened = None
        if settings.state_dir:
            opened = open_state(settings.state_dir, settings)
        clock = opened.clock if opened is not None else clock or make_clock(settings)
        store = Store(seed, clock, settings.random_seed, loader=load_world)
        webhooks, scenarios = _engines(store, settings, data_dir("scenarios"))
        if not settings.watch:
            paths = [scenarios.file_of(path) for path in settings.scenario_paths]
            if settings.scenario_dir is not None:
                paths += directory_files(settings.scenario_dir)
            for path in paths:  # a bad one raises ScenarioError first
                scenarios.load(load_scenario(path))
        journal = Journal(settings.journal_size)
        store.reset_hooks.append(journal.clear)
        sandbox = cls(settings, store, scenarios, webhooks, journal)
        if opened is not None:
            sandbox.durability = make_durable(sandbox, opened)
        if settings.watch:  # a bad scenario is reported and shown, and the server starts
            sandbox.live = LiveFiles(sandbox)
            sandbox.live.load_at_start()
        return sandbox

    def _account(self, made: NewAccount, random_seed: int, clock: Clock) -> SandboxState:
        return SandboxState.for_account(self, made, random_seed, clock)

    @classmethod
    def for_account(
        cls, server: SandboxState, made: NewAccount, random_seed: int, clock: Clock
    ) -> SandboxState:
        """The sandbox of one account made through the control plane: a store whose seed is
        that account as created (so its reset puts it back so), on `clock` (its own, or a
        `FollowClock` of the server's), with id streams of `random_seed`, request ids of its
        own, the server's settings and field limits, its own scenarios and webhooks, and its
        share of the server's journal."""
        settings, account = server.settings, made.account
        seed = SeedData(
            source=f"account {account.id}",
            accounts={account.id: account},
            keys={made.full.key: made.full, made.readonly.key: made.readonly},
            limits=server.store.limits,
            reference_time=int(clock.now()),
        )
        store = Store(seed, clock, random_seed, loader=load_world, streams=f"{account.id}/")
        # a scenario written for the default seed acts, and matches, with this account's keys
        binding = {DEFAULT_KEY: made.full.key, DEFAULT_READONLY_KEY: made.readonly.key}
        webhooks, scenarios = _engines(
            store, settings, server.scenarios.scenarios_dir, binding, f"account {account.id}"
        )
        webhooks.share_clients(server.webhooks)  # closed with the server's
        journal = AccountJournal(server.journal, account.id)
        store.reset_hooks.append(journal.clear)
        return cls(
            settings,
            store,
            scenarios,
            webhooks,
            journal,
            account=account.id,
            outer_scenarios=server.scenarios,
            observers=server.observers,  # one request log for all
            server=server,
        )

    def running(self) -> AbstractAsyncContextManager[None]:
        """The sandbox's background life while a server runs (the webhook HTTP client and the
        real clock's timer ticks, the watch of `run --watch`'s files; for a durable one, first
        the replay of its log, whose requests enter the app through `own_requests`), as an
        async context for a lifespan."""
        inner = self.webhooks.running() if self.live is None else self._watching()
        if self.durability is not None:
            if self.own_requests is None:
                raise RuntimeError("a durable sandbox runs inside the app that serves it")
            return self.durability.running(inner, self.own_requests)
        return inner

    @contextlib.asynccontextmanager
    async def _watching(self) -> AsyncIterator[None]:
        """The webhooks' background life, and the watch of the files (once a durable
        sandbox's log is replayed, so that a save applies to the state as it is)."""
        assert self.live is not None
        async with self.webhooks.running(), watching(self.live):
            yield

    def use_seed(self, seed: SeedData) -> list[ScenarioError]:
        """Reset to another seed (a watched seed file saved), as `POST /_mock/reset` resets,
        and load the loaded scenarios again; the errors of those that no longer load."""
        texts = [(item.scenario.text, item.scenario.source) for item in self.scenarios.loaded]
        self.store.use_seed(seed)
        self.principals.clear()
        self.openapi = None
        self.snapshots.seed_fingerprint = None
        failed: list[ScenarioError] = []
        for text, source in texts:
            try:
                self.scenarios.load(load_scenario_text(text, source))
            except ScenarioError as error:
                failed.append(error)
        return failed


def _engines(
    store: Store,
    settings: Settings,
    scenarios_dir: Path | None,
    key_binding: dict[str, str] | None = None,
    where: str = "the seed",
) -> tuple[DeliveryEngine, ScenarioEngine]:
    """The store's limits as the settings say, and its webhook and scenario engines, each
    handed the other's part it calls: the scenarios' webhook faults, the webhook engine's way
    to add a scenario's endpoint and the endpoints it has. `key_binding` and `where`: an
    account sandbox's (`ScenarioEngine`)."""
    store.rate_limits.enforce = settings.rate_limit  # --no-rate-limit: headers, no refusals
    store.idempotency.capacity = settings.idempotency_records

    def add_endpoint(world: World, spec: dict[str, Any], now: int) -> None:
        # Called once a scenario is loaded, after both engines are built: the two need each
        # other, and the webhook engine is built second, with the scenarios' faults.
        webhooks.scenario_endpoint(world, spec, now)

    def endpoint_ids() -> Iterator[str]:
        return (e for book in webhooks.books.values() for e in book.endpoints)

    scenarios = ScenarioEngine(
        store,
        scenarios_dir,
        webhook_setup=add_endpoint,
        endpoint_ids=endpoint_ids,
        key_binding=key_binding,
        where=where,
    )
    webhooks = DeliveryEngine(
        store,
        timeout=settings.webhook_timeout,
        strict_urls=settings.strict_webhook_urls,
        queue_size=settings.webhook_queue_size,
        journal_size=settings.webhook_journal_size,
        faults=scenarios.webhook_fault,
    )
    return webhooks, scenarios
