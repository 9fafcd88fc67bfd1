"""The app factory: every server, test client and CLI run is built by `create_app(settings)`.

The app is a Starlette application. What a request goes through is `middleware()`, outermost
first, then the router: `routes()`, the `/v1` operations, the inspector's pages mounted at
`/_mock/ui` and the control plane mounted at `/_mock`. What no route serves is the API's 404
envelope or a trailing-slash redirect (`unmatched.py`), a method a path does not serve the 404
envelope too: Starlette's own 404 and 405 never show. The lifespan runs the sandbox's
background work.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import BaseRoute

from mockserver.core.config import Settings
from mockserver.engine.sandbox import SandboxState
from mockserver.web import api
from mockserver.web.adapter import own_requests
from mockserver.web.control import control_mount
from mockserver.web.inspector import inspector_routes
from mockserver.web.middleware.authentication import AccountSandbox, Authentication
from mockserver.web.middleware.body_timeout import BodyTimeout
from mockserver.web.middleware.durable_log import DurableLog
from mockserver.web.middleware.errors import Errors
from mockserver.web.middleware.idempotency import Idempotency
from mockserver.web.middleware.journal import RequestJournal
from mockserver.web.middleware.observability import Observe
from mockserver.web.middleware.scenarios import Scenarios, TransportFaults
from mockserver.web.unmatched import method_not_served, unmatched

if TYPE_CHECKING:
    from mockserver.domain.models import SeedData

# Below this a response goes as it is: gzip would gain little on small bodies and cost CPU.
# Level 6 (zlib's default) rather than Starlette's 9, which costs far more for a few percent.
GZIP_MINIMUM_SIZE = 1024


def middleware(sandbox: SandboxState) -> list[Middleware]:
    """What every request goes through, outermost first. A transport fault breaks the
    connection with the answer as the sandbox made it, so it sits outside compression; a
    health check is answered, and a client's request counted, before anything else looks at
    it; a durable sandbox logs every request before it runs."""
    durable = sandbox.durability
    return [
        Middleware(BodyTimeout, seconds=sandbox.settings.body_timeout),
        Middleware(TransportFaults),
        Middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM_SIZE, compresslevel=6),
        Middleware(Observe, sandbox=sandbox),
        *([Middleware(DurableLog, durability=durable)] if durable is not None else []),
        Middleware(AccountSandbox, sandbox=sandbox),
        Middleware(RequestJournal),
        Middleware(Authentication),
        Middleware(Idempotency),
        Middleware(Errors),
        Middleware(Scenarios),
    ]


def routes(sandbox: SandboxState) -> list[BaseRoute]:
    """What the router serves, in the order it matches: the `/v1` operations, then (unless
    `--no-admin`) the inspector's pages and the control plane."""
    served: list[BaseRoute] = list(api.routes())
    if sandbox.settings.admin:
        served += [*inspector_routes(), control_mount(sandbox)]
    return served


def running(app: Starlette) -> AbstractAsyncContextManager[None]:
    """The app's lifespan: its sandbox's background life (the webhook client, the real clock's
    ticks; first the replay of a durable sandbox, whose requests enter `app` as its own)."""
    sandbox: SandboxState = app.state.sandbox
    return sandbox.running()


def create_app(settings: Settings | None = None, *, seed: SeedData | None = None) -> Starlette:
    """Build a server: the sandbox (a bad seed or scenario raises before anything runs), then
    the Starlette app that serves it. `app.state.sandbox` is the sandbox, `app.state.control`
    its control facade; the sandbox's parts are there too (`store`, `scenarios`, `webhooks`,
    `journal`, `accounts`, `settings`). Code that drives the app with no server (httpx's
    ASGITransport runs no lifespan) runs its background work with
    `async with app.state.sandbox.running():`."""
    settings = settings or Settings()
    sandbox = SandboxState.build(settings, seed)
    app = Starlette(
        routes=routes(sandbox),
        middleware=middleware(sandbox),
        lifespan=running,
        exception_handlers={405: method_not_served},
    )
    # Starlette() does not pass these on to its router: what no route serves is ours to answer.
    app.router.redirect_slashes = False
    app.router.default = unmatched
    sandbox.own_requests = own_requests(app)
    state = app.state
    state.sandbox = sandbox
    state.control = sandbox.control
    state.store = sandbox.store
    state.webhooks = sandbox.webhooks
    state.settings = settings
    state.scenarios = sandbox.scenarios
    state.journal = sandbox.journal
    state.accounts = sandbox.accounts
    return app
