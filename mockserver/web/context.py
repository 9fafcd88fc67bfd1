"""Per-request context: what the pipeline learns about a request, and the authenticated call.

The pipeline turns each ASGI request into one `RequestContext` (its request id, the store, the
routed region, and what rate limiting, idempotency and scenarios learn along the way) and puts
it in the scope under one key, `CONTEXT`; every later step reads and writes that typed object
through `context_of`, never loose scope keys.

`endpoint(scope)` wraps a handler `async (Call) -> Response` into a Starlette endpoint that
authenticates (401: the credential the pipeline resolved for rate limiting, or the reason it
could not), checks the scope (403) and the query (422 for a repeated parameter), records the
scope the operation required (idempotent replays check it), and hands the handler a `Call`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, final

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from mockserver.domain.auth import Principal, bearer_token, principal_for_key, require_scope
from mockserver.domain.oauth import TOKEN_PREFIX, principal_for_token
from mockserver.domain.store import Store, World
from mockserver.web.limits import refuse_repeated

if TYPE_CHECKING:
    from mockserver.engine.control import Control
    from mockserver.web.exchange import Exchange

CONTEXT = "mockserver.context"  # the scope's one key of ours: the request's RequestContext


@final
class RequestContext:
    """One request as the pipeline and the layers inside it know it.

    Set by the pipeline: `request_id`, `store`, `region` (routed: `us`, `eu`, or None for the
    account's default). Set on the way in: `principal` (rate limiting resolved a valid
    credential), `parsed_body` (the idempotency fingerprint parsed the body: (bytes, object)),
    `operation` (the scope the endpoint required; None until an operation ran), `rule` (the
    scenario rule that answered, for the journal), and `exchange`: the pipeline's response
    side, which takes a whole response in one call (`Exchange.respond`).
    """

    __slots__ = (
        "exchange",
        "operation",
        "parsed_body",
        "principal",
        "region",
        "request_id",
        "rule",
        "store",
    )

    def __init__(self, request_id: str, store: Store) -> None:
        self.request_id = request_id
        self.store = store
        self.region: str | None = None
        self.principal: Principal | None = None
        self.parsed_body: tuple[bytes, dict[str, Any]] | None = None
        self.operation: str | None = None
        self.rule: str | None = None
        self.exchange: Exchange | None = None


def context_of(scope: Scope) -> RequestContext | None:
    """The request's context, or None outside the pipeline (a bare router in a test)."""
    context: RequestContext | None = scope.get(CONTEXT)
    return context


@final
class Call:
    """One authenticated API call: the request, the store, the caller, the caller's world and
    the routed region."""

    __slots__ = ("_now", "principal", "region", "request", "store", "world")

    def __init__(
        self, request: Request, store: Store, principal: Principal, world: World, region: str
    ) -> None:
        self.request = request
        self.store = store
        self.principal = principal
        self.world = world
        self.region = region
        self._now: int | None = None

    def now(self) -> int:
        """The operation's time on the mock clock, taken on the first call: timers due by then
        run first. Handlers call it after their last await, right before the domain operation,
        so an operation never writes with a time read before other requests could run."""
        if self._now is None:
            self.store.scheduler.run_due()
            self._now = self.store.now()
        return self._now


Handler = Callable[[Call], Awaitable[Response]]


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def control_of(request: Request) -> Control:
    """The control facade of the sandbox the app serves."""
    control: Control = request.app.state.control
    return control


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
            context = context_of(asgi)
            store = context.store if context is not None else store_of(request)
            principal = context.principal if context is not None else None
            if principal is None:  # raises the 401 that says why
                principal = principal_for(store, request.headers.get("authorization"))
            require_scope(principal, scope)
            if context is not None:
                context.operation = operation
            if asgi["query_string"]:
                refuse_repeated(request.query_params)
            world = store.world(principal.account_id, principal.environment)
            region = (context.region if context is not None else None) or (
                world.account.default_region
            )
            return await handler(Call(request, store, principal, world, region))

        return run

    return wrap
