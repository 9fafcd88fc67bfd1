"""The sandbox: one object that owns everything a mock instance is, with no HTTP in it.

`Sandbox.build(settings)` loads the seed (raising SeedError before anything runs) and wires the
parts together: the store (worlds, clock, scheduler, credentials, idempotency and rate
windows), the scenario engine, the webhook delivery engine, the request journal and the
account factory. `api` runs the `/v1` operations (typed calls to typed answers); `control` is
the facade that every way of steering the sandbox calls: the
`/_mock` endpoints, the inspector, the CLI and the pytest plugin.

The web layer (`mockserver.web.app.create_app`) builds one sandbox and serves it.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from mockserver.core.clock import Clock, FrozenClock, RealClock, parse_ts
from mockserver.core.config import DEFAULT_START_TIME, Settings
from mockserver.core.resources import data_dir, default_seed_path
from mockserver.domain.accounts import AccountFactory
from mockserver.domain.models import SeedData
from mockserver.domain.store import Store
from mockserver.engine.api import Api
from mockserver.engine.control import Control
from mockserver.engine.journal import Journal
from mockserver.engine.snapshots import Snapshots
from mockserver.scenarios.engine import ScenarioEngine
from mockserver.scenarios.loader import load_scenario
from mockserver.seeds.loader import load_seed
from mockserver.seeds.world import load_world
from mockserver.webhooks.delivery import DeliveryEngine


def make_clock(settings: Settings) -> Clock:
    """A frozen clock at the start time, or the wall clock (moved to the start time if given)."""
    if settings.clock_mode == "frozen":
        return FrozenClock(parse_ts(settings.start_time or DEFAULT_START_TIME))
    clock = RealClock()
    if settings.start_time:
        clock.start_at(parse_ts(settings.start_time))
    return clock


class Sandbox:
    """Worlds, clock, scheduler, scenarios, journal and webhooks of one mock instance."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        scenarios: ScenarioEngine,
        webhooks: DeliveryEngine,
        journal: Journal,
    ) -> None:
        self.settings = settings
        self.store = store
        self.scenarios = scenarios
        self.webhooks = webhooks
        self.journal = journal
        self.accounts = AccountFactory(store)
        self.api = Api(store, webhooks)
        self.snapshots = Snapshots()
        self.control = Control(self)

    @classmethod
    def build(
        cls, settings: Settings, seed: SeedData | None = None, *, clock: Clock | None = None
    ) -> Sandbox:
        """A sandbox from `settings` (and the seed, when already loaded; and its clock, when
        made already: a durable one is): a bad seed or scenario raises its load error before
        anything is built around it."""
        if seed is None:
            seed = load_seed(settings.seed_path or default_seed_path())
        clock = clock or make_clock(settings)
        store = Store(seed, clock, settings.random_seed, loader=load_world)
        store.rate_limits.enforce = settings.rate_limit  # --no-rate-limit: headers, no refusals
        store.idempotency.capacity = settings.idempotency_records
        webhooks = DeliveryEngine(
            store,
            timeout=settings.webhook_timeout,
            strict_urls=settings.strict_webhook_urls,
            queue_size=settings.webhook_queue_size,
            journal_size=settings.webhook_journal_size,
        )
        scenarios = ScenarioEngine(store, data_dir("scenarios"))
        webhooks.fault_hook = scenarios.webhook_fault  # scenarios' webhook faults
        scenarios.webhook_setup = webhooks.scenario_endpoint  # scenarios' add_webhook_endpoint
        for path in settings.scenario_paths:  # a bad one raises ScenarioError before serving
            scenarios.load(load_scenario(scenarios.file_of(path)))
        journal = Journal(settings.journal_size)
        store.reset_hooks.append(journal.clear)
        return cls(settings, store, scenarios, webhooks, journal)

    def running(self) -> AbstractAsyncContextManager[None]:
        """The sandbox's background life while a server runs (the webhook HTTP client and the
        real clock's timer ticks), as an async context for a lifespan."""
        return self.webhooks.running()
