"""The app factory: every server, test client and CLI run is built by `create_app(settings)`."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response

from mockserver.clock import Clock, FrozenClock, RealClock, parse_ts
from mockserver.config import DEFAULT_START_TIME, Settings
from mockserver.delivery import DeliveryEngine
from mockserver.domain.accounts import AccountFactory
from mockserver.domain.models import SeedData
from mockserver.domain.seeding import load_world
from mockserver.errors import NotFound
from mockserver.journal import Journal
from mockserver.resources import data_dir, default_seed_path
from mockserver.scenarios.engine import ScenarioEngine
from mockserver.scenarios.loader import load_scenario
from mockserver.seeds import load_seed
from mockserver.store import Store

from .admin_api import admin_routes
from .admin_webhooks import admin_webhook_routes
from .compression import Compression
from .faults import FaultLayer
from .inspector import inspector_routes
from .journal_layer import JournalLayer
from .pipeline import Pipeline
from .routes import v1_routes
from .scenario_api import scenario_routes

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


async def unknown_route(request: Request, exc: Exception) -> Response:
    """Unknown paths and methods are 404 `not_found` in the envelope (raised to the pipeline)."""
    raise NotFound(f"Unrecognized request URL ({request.method} {request.url.path}).")


def create_app(settings: Settings | None = None, *, seed: SeedData | None = None) -> Starlette:
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
    # gzip outermost: it keeps every header the pipeline adds and judges the final body. The
    # journal sees what the client sent and got (before gzip); faults run inside the pipeline.
    journaling = [Middleware(JournalLayer, store=store, journal=journal)] if settings.admin else []
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(Compression, minimum_size=GZIP_MINIMUM_SIZE, compresslevel=6),
            *journaling,
            Middleware(Pipeline, store=store, forced_limit=engine.forced_rate_limit),
            Middleware(FaultLayer, store=store, engine=engine),
        ],
        exception_handlers={HTTPException: unknown_route},
        lifespan=lambda _: webhooks.running(),  # webhook HTTP client; real-clock timer ticks
    )
    app.state.store = store
    app.state.webhooks = webhooks
    app.state.settings = settings
    app.state.scenarios = engine
    app.state.journal = journal
    app.state.accounts = AccountFactory(store)
    return app
