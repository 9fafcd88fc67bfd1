"""Per-request context: the authenticated caller, its world and the routed region.

`endpoint(scope)` wraps a handler `async (Call) -> Response` into a Starlette endpoint that
authenticates first (401), checks the scope (403) and the query (422 for a repeated parameter),
and then hands the handler everything the domain needs. The pipeline resolves the credential
once, for rate limiting, and leaves the principal in the ASGI scope for the wrapper to reuse;
the wrapper leaves the scope it required there for idempotent replays to check.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import wraps
from typing import final

from starlette.requests import Request
from starlette.responses import Response

from mockserver.domain.auth import Principal, bearer_token, principal_for_key, require_scope
from mockserver.domain.oauth import TOKEN_PREFIX, principal_for_token
from mockserver.domain.store import Store, World
from mockserver.web.limits import refuse_repeated

REGION_KEY = "mock.region"
REQUEST_ID_KEY = "mock.request_id"
PRINCIPAL_KEY = "mock.principal"  # set by the pipeline when the credential is valid
STORE_KEY = "mock.store"  # set by the pipeline: `app.state.store` without State's __getattr__
OPERATION_KEY = "mock.operation"  # set by `endpoint`: the scope the operation required


@final
@dataclass(init=False, slots=True)
class Call:
    """One authenticated API call. (The `__init__` is written out so that compiled code builds
    one natively: a generated one is Python, 0.3 us a request.)"""

    request: Request
    store: Store
    principal: Principal
    world: World
    region: str
    _now: int | None

    def __init__(
        self, request: Request, store: Store, principal: Principal, world: World, region: str
    ) -> None:
        self.request = request
        self.store = store
        self.principal = principal
        self.world = world
        self.region = region
        self._now = None

    @property
    def now(self) -> int:
        """The operation's time on the mock clock, read on first use. Handlers read their body
        first, so the time is taken (and timers due by then are run) after the last await and
        right before the domain operation: an operation never writes with a time read before
        other requests could run."""
        if self._now is None:
            self.store.scheduler.run_due()
            self._now = self.store.now()
        return self._now


Handler = Callable[[Call], Awaitable[Response]]


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def principal_for(store: Store, authorization: str | None) -> Principal:
    """The principal behind an `Authorization` header's bearer credential (an API key or an
    OAuth access token), or 401."""
    token = bearer_token(authorization)
    if token.startswith(TOKEN_PREFIX):
        return principal_for_token(store.oauth, token, store.now())
    return principal_for_key(store.keys, token)


def endpoint(scope: str | None) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Guard a handler with authentication (the principal the pipeline resolved, or 401) and
    the scope it needs."""

    operation = scope or ""

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        @wraps(handler)
        async def run(request: Request) -> Response:
            asgi = request.scope
            principal: Principal | None = asgi.get(PRINCIPAL_KEY)
            store: Store | None = asgi.get(STORE_KEY)
            if store is None:
                store = store_of(request)
            if principal is None:
                principal = principal_for(store, request.headers.get("authorization"))
            require_scope(principal, scope)
            asgi[OPERATION_KEY] = operation
            if asgi["query_string"]:
                refuse_repeated(request.query_params)
            world = store.world(principal.account_id, principal.environment)
            region = asgi.get(REGION_KEY) or world.account.default_region
            return await handler(Call(request, store, principal, world, region))

        return run

    return wrap
