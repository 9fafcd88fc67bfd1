"""The app factory: every server, test client and CLI run is built by `create_app(settings)`."""

from __future__ import annotations

import traceback
from contextlib import AbstractAsyncContextManager
from types import SimpleNamespace
from typing import TYPE_CHECKING

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


class MockApp:
    """A sandbox as an ASGI application. HTTP requests go to `http`, the adapter of the
    sandbox; the lifespan runs the sandbox's background work (`lifespan()`); a WebSocket is
    closed at once, as the API has none. `state` holds the sandbox and its parts.

    It is no Starlette application: building one costs every pytest session that uses
    `mock_client` the import of Starlette's routing, requests and responses (about 6 ms),
    and the mock needs none of it. The lifespan follows the ASGI lifespan protocol as
    Starlette's router does (a failure's traceback goes to the server in the `failed`
    message)."""

    http: Adapter

    def __init__(self, sandbox: Sandbox, http: Adapter) -> None:
        self.sandbox = sandbox
        self.http = http
        self.state = SimpleNamespace()

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """The sandbox's background life (its webhook client, the real clock's ticks; first
        the replay of a durable sandbox), as an async context: what an ASGI server's lifespan
        runs, for code that drives the app without one."""
        return self.sandbox.running()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self.http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000, "reason": ""})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        started = False
        await receive()  # lifespan.startup
        try:
            async with self.lifespan():
                await send({"type": "lifespan.startup.complete"})
                started = True
                await receive()  # lifespan.shutdown
        except BaseException:
            failed = "lifespan.shutdown.failed" if started else "lifespan.startup.failed"
            await send({"type": failed, "message": traceback.format_exc()})
            raise
        else:
            await send({"type": "lifespan.shutdown.complete"})


def create_app(settings: Settings | None = None, *, seed: SeedData | None = None) -> MockApp:
    """Build a server: the sandbox (a bad seed or scenario raises before anything runs), then
    the ASGI app that serves it. `app.state.sandbox` is the sandbox, `app.state.control` its
    control facade; the sandbox's parts are there too (`store`, `scenarios`, `webhooks`,
    `journal`, `accounts`, `settings`)."""
    settings = settings or Settings()
    sandbox = Sandbox.build(settings, seed)
    app = MockApp(sandbox, Adapter(sandbox, minimum_size=GZIP_MINIMUM_SIZE, compresslevel=6))
    sandbox.add_pages(inspector_routes(app))
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
