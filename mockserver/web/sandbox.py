"""The public `Sandbox`: a sandbox and the app that serves it, with no HTTP server.

`Sandbox.build(settings)` builds the app (`create_app`), and `await sandbox.handle(request)`
answers a `Request` through it: every middleware and route a request over HTTP takes, so the
answer is the one the HTTP server gives for that request on that state. The sandbox's parts
(`control`, `store`, `scenarios`, `webhooks`, `journal`, `accounts`, `settings`) are reachable
as on `app.state`.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.engine.journal import Observer
from mockserver.engine.request import Request, Response
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import answer
from mockserver.web.app import create_app, running

if TYPE_CHECKING:
    from mockserver.domain.accounts import AccountFactory
    from mockserver.domain.models import SeedData
    from mockserver.domain.store import Store
    from mockserver.engine.control import Control
    from mockserver.engine.journal import Journal
    from mockserver.scenarios.engine import ScenarioEngine
    from mockserver.webhooks.delivery import DeliveryEngine


class Sandbox:
    """One mock instance driven in-process: `handle` answers a `Request` through its app."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.state: SandboxState = app.state.sandbox

    @classmethod
    def build(cls, settings: Settings, seed: SeedData | None = None) -> Sandbox:
        """A sandbox from `settings` (and the seed, when already loaded): a bad seed or
        scenario raises its load error before anything is built around it; with
        `settings.state_dir`, a durable one (its log replayed once it runs)."""
        return cls(create_app(settings, seed=seed))

    async def handle(self, request: Request) -> Response:
        """The answer to `request` (its body `request.body`), as the HTTP server gives it:
        request id, journal, authentication, regions, rate limits, idempotency, scenarios,
        due timers, the error envelope; `/_mock` requests included. An answer with a transport
        fault comes back with its `fault` set."""
        return await answer(self.app, request)

    def running(self) -> AbstractAsyncContextManager[None]:
        """The sandbox's background life (webhook deliveries, the real clock's ticks; first
        the replay of a durable sandbox's log), as an async context."""
        return running(self.app)

    def observe(self, observer: Observer) -> None:
        """Call `observer` with every API request (not `/_mock`) once answered."""
        self.state.observe(observer)

    @property
    def settings(self) -> Settings:
        return self.state.settings

    @property
    def control(self) -> Control:
        return self.state.control

    @property
    def store(self) -> Store:
        return self.state.store

    @property
    def scenarios(self) -> ScenarioEngine:
        return self.state.scenarios

    @property
    def webhooks(self) -> DeliveryEngine:
        return self.state.webhooks

    @property
    def journal(self) -> Journal:
        return self.state.journal

    @property
    def accounts(self) -> AccountFactory:
        return self.state.accounts
