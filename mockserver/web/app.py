"""The app factory: every server, test client and CLI run is built by `create_app(settings)`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from mockserver.core.config import Settings
from mockserver.engine.sandbox import Sandbox
from mockserver.web.adapter import Adapter
from mockserver.web.inspector import inspector_routes

if TYPE_CHECKING:
    from mockserver.domain.models import SeedData

# Below this a response goes as it is: gzip would gain little on small bodies and cost CPU.
# Level 6 (zlib's default) rather than Starlette's 9, which costs far more for a few percent.
GZIP_MINIMUM_SIZE = 1024


class MockApp(Starlette):
    """A Starlette app (its state and lifespan, which tests, the pytest plugin and uvicorn
    use) whose HTTP requests go to `http`, the adapter of its sandbox."""

    http: Adapter  # its class, not any ASGI app: compiled code then calls it directly

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, *, seed: SeedData | None = None) -> MockApp:
    """Build a server: the sandbox (a bad seed or scenario raises before anything runs), then
    the web app that serves it. `app.state.sandbox` is the sandbox, `app.state.control` its
    control facade; the sandbox's parts are there too (`store`, `scenarios`, `webhooks`,
    `journal`, `accounts`, `settings`)."""
    settings = settings or Settings()
    sandbox = Sandbox.build(settings, seed)
    app = MockApp(lifespan=lambda _: sandbox.running())  # webhook client, real-clock ticks
    sandbox.add_pages(inspector_routes(app))
    app.http = Adapter(sandbox, minimum_size=GZIP_MINIMUM_SIZE, compresslevel=6)
    app.state.sandbox = sandbox
    app.state.control = sandbox.control
    app.state.store = sandbox.store
    app.state.webhooks = sandbox.webhooks
    app.state.settings = settings
    app.state.scenarios = sandbox.scenarios
    app.state.journal = sandbox.journal
    app.state.accounts = sandbox.accounts
    return app
