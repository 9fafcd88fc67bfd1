"""The app factory: every server, test client and CLI run is built by `create_app(settings)`."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.core.clock import Clock, FrozenClock, RealClock, parse_ts
from mockserver.core.config import DEFAULT_START_TIME, Settings
from mockserver.core.resources import data_dir, default_seed_path
from mockserver.domain.accounts import AccountFactory
from mockserver.domain.models import SeedData
from mockserver.domain.store import Store
from mockserver.engine.journal import Journal
from mockserver.scenarios.engine import ScenarioEngine
from mockserver.scenarios.loader import load_scenario
from mockserver.seeds.loader import load_seed
from mockserver.seeds.world import load_world
from mockserver.serving import head_writer
from mockserver.web.control_api import admin_routes
from mockserver.web.control_scenarios import scenario_routes
from mockserver.web.control_webhooks import admin_webhook_routes
from mockserver.web.dispatch import Dispatcher
from mockserver.web.faults import FaultLayer
from mockserver.web.inspector import inspector_routes
from mockserver.web.pipeline import Pipeline
from mockserver.web.routes import v1_routes
from mockserver.webhooks.delivery import DeliveryEngine

# Below this a response goes as it is: gzip would gain little on small bodies and cost CPU.
# Level 6 (zlib's default) rather than Starlette's 9, which costs far more for a few percent.
GZIP_MINIMUM_SIZE = 1024


def make_clock(settings: Settings) -> Clock:
    """A frozen clock at the start time, or the wall clock (moved to the start time if given)."""
    if settings.clock_mode == "frozen":
        return FrozenClock(parse_ts(settings.start_time or DEFAULT_START_TIME))
    clock = RealClock()
    if settings.start_time:
        clock.start_at(parse_ts(settings.start_time))
    return clock


class MockApp(Starlette):
    """A Starlette app (its state, routes and lifespan, which tests, the pytest plugin and
    uvicorn use) whose HTTP requests skip Starlette's middleware stack: they go straight to
    `http`, the pipeline, which ends in the dispatcher. Lifespan and websocket scopes go the
    Starlette way."""

    http: ASGIApp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope["app"] = self
            await self.http(scope, receive, head_writer.direct(send))
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, *, seed: SeedData | None = None) -> MockApp:
    """Build a server: load the seed (raising SeedError before anything runs), then the app."""
    settings = settings or Settings()
    if seed is None:
        seed = load_seed(settings.seed_path or default_seed_path())
    store = Store(seed, make_clock(settings), settings.random_seed, loader=load_world)
    store.rate_limits.enforce = settings.rate_limit  # --no-rate-limit: headers, no refusals
    webhooks = DeliveryEngine(
        store, timeout=settings.webhook_timeout, strict_urls=settings.strict_webhook_urls
    )
    engine = ScenarioEngine(store, data_dir("scenarios"))
    webhooks.fault_hook = engine.webhook_fault  # scenarios' webhook faults
    engine.webhook_setup = webhooks.scenario_endpoint  # scenarios' add_webhook_endpoint
    for path in settings.scenario_paths:  # a bad one raises ScenarioError before serving
        named = engine.path_of(str(path)) if not path.exists() else None
        engine.load(load_scenario(named or path))
    journal = Journal(settings.journal_size)
    store.reset_hooks.append(journal.clear)
    admin = admin_routes() + admin_webhook_routes() + scenario_routes() + inspector_routes()
    routes = v1_routes() + (admin if settings.admin else [])
    app = MockApp(
        routes=routes,
        lifespan=lambda _: webhooks.running(),  # webhook HTTP client; real-clock timer ticks
    )
    # Compression outermost: it keeps every header the pipeline adds and judges the final body.
    # The journal sees what the client sent and got (before gzip); faults run inside the
    # pipeline, and only while a scenario has armed something.
    dispatch = Dispatcher(app.router)
    faults = FaultLayer(dispatch, store=store, engine=engine)
    app.http = Pipeline(
        dispatch,
        store,
        faults=faults,
        journal=journal if settings.admin else None,
        forced_limit=engine.forced_rate_limit,
        minimum_size=GZIP_MINIMUM_SIZE,
        compresslevel=6,
    )
    app.state.store = store
    app.state.webhooks = webhooks
    app.state.settings = settings
    app.state.scenarios = engine
    app.state.journal = journal
    app.state.accounts = AccountFactory(store)
    return app
