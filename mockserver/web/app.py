"""The app factory: every server, test client and CLI run is built by `create_app(settings)`."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.core.config import Settings
from mockserver.domain.models import SeedData
from mockserver.engine.durable_state import open_state
from mockserver.engine.sandbox import Sandbox
from mockserver.web.control_api import admin_routes
from mockserver.web.control_events import event_routes
from mockserver.web.control_scenarios import scenario_routes
from mockserver.web.control_snapshots import snapshot_routes
from mockserver.web.control_verify import verify_routes
from mockserver.web.control_webhooks import admin_webhook_routes
from mockserver.web.dispatch import Dispatcher
from mockserver.web.faults import FaultLayer
from mockserver.web.inspector import inspector_routes
from mockserver.web.pipeline import Pipeline
from mockserver.web.routes import v1_routes

# Below this a response goes as it is: gzip would gain little on small bodies and cost CPU.
# Level 6 (zlib's default) rather than Starlette's 9, which costs far more for a few percent.
GZIP_MINIMUM_SIZE = 1024


class MockApp(Starlette):
    """A Starlette app (its state, routes and lifespan, which tests, the pytest plugin and
    uvicorn use) whose HTTP requests skip Starlette's middleware stack: they go straight to
    `http`, the pipeline, which ends in the dispatcher. Lifespan and websocket scopes go the
    Starlette way."""

    http: ASGIApp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope["app"] = self
            await self.http(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, *, seed: SeedData | None = None) -> MockApp:
    """Build a server: the sandbox (a bad seed or scenario raises before anything runs), then
    the web app that serves it. `app.state.sandbox` is the sandbox, `app.state.control` its
    control facade; the sandbox's parts are there too (`store`, `scenarios`, `webhooks`,
    `journal`, `accounts`, `settings`)."""
    settings = settings or Settings()
    opened = open_state(settings.state_dir, settings) if settings.state_dir else None
    sandbox = Sandbox.build(settings, seed, clock=opened.clock if opened else None)
    admin = (
        admin_routes()
        + admin_webhook_routes()
        + event_routes()
        + scenario_routes()
        + verify_routes()
        + snapshot_routes()
        + inspector_routes()
    )
    routes = v1_routes(sandbox.api) + (admin if settings.admin else [])
    app = MockApp(
        routes=routes,
        lifespan=lambda _: sandbox.running(),  # webhook HTTP client; real-clock timer ticks
    )
    # Compression outermost: it keeps every header the pipeline adds and judges the final body.
    # The journal sees what the client sent and got (before gzip); faults run inside the
    # pipeline, and only while a scenario has armed something.
    dispatch = Dispatcher(app.router)
    faults = FaultLayer(dispatch, store=sandbox.store, engine=sandbox.scenarios)
    app.http = Pipeline(
        dispatch,
        sandbox.store,
        faults=faults,
        journal=sandbox.journal if settings.admin else None,
        forced_limit=sandbox.scenarios.forced_rate_limit,
        minimum_size=GZIP_MINIMUM_SIZE,
        compresslevel=6,
    )
    if opened is not None:  # durable: DIR's log wraps the pipeline
        from mockserver.web.durable import make_durable

        make_durable(app, sandbox, opened)
    app.state.sandbox = sandbox
    app.state.control = sandbox.control
    app.state.store = sandbox.store
    app.state.webhooks = sandbox.webhooks
    app.state.settings = settings
    app.state.scenarios = sandbox.scenarios
    app.state.journal = sandbox.journal
    app.state.accounts = sandbox.accounts
    return app
