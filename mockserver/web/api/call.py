"""What every `/v1` endpoint does around its domain operation: find the caller and its world,
read the query and the body, and render the answer.

An endpoint is a plain async function: `call = await call_of(request, scope, body)` checks the
request in the order the real service does (the credential and its permission: 401, 403; a
repeated query parameter: 422; then the body it takes: 400, 413), all on the caller the
`Authentication` middleware resolved; it then calls its domain function with `call.now()` and
returns `answer(...)`. An error goes up to the `Errors` middleware, which renders the envelope.
The few endpoints without a bearer credential (OAuth, an export's download, the OpenAPI
document) read what they need with `query_of` and `form_of`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.errors import ValidationError
from mockserver.domain.auth import Principal, require_scope
from mockserver.domain.store import Store, World
from mockserver.engine.answers import JSON, header_lines
from mockserver.engine.journal import RequestState
from mockserver.engine.request import (
    MAX_BODY,
    check_form_head,
    check_json_head,
    parse_form,
    parse_json_object,
    query_pairs,
)
from mockserver.engine.sandbox import SandboxState

JSON_BODY: Final = "json"  # what `call_of` reads: a JSON object
NO_QUERY: dict[str, str] = {}  # what a request without a query string reads (never written)
_JSON_TYPE = (b"content-type", JSON.encode())


@final
class Call:
    """One authenticated operation's request: its sandbox, its caller and the caller's world,
    the routed region (the caller's default when none is), its path parameters, query (one
    value per name, and every pair in order) and parsed body."""

    __slots__ = (
        "_now",
        "body",
        "params",
        "principal",
        "query",
        "query_pairs",
        "region",
        "sandbox",
        "state",
        "store",
        "world",
    )

    def __init__(
        self,
        sandbox: SandboxState,
        state: RequestState,
        principal: Principal,
        world: World,
        params: dict[str, Any],
        query: tuple[dict[str, str], list[tuple[str, str]]],
    ) -> None:
        self.sandbox = sandbox
        self.store: Store = sandbox.store
        self.state = state
        self.principal = principal
        self.world = world
        self.region = state.region or world.account.default_region
        self.params = params
        self.query, self.query_pairs = query
        self.body: Any = None
        self._now: int | None = None

    def now(self) -> int:
        """The operation's time on the mock clock, taken on the first call: timers due by then
        run first. Endpoints call it right before the domain operation, after the body was
        read, so an operation never writes with a time read before other requests could run."""
        if self._now is None:
            store = self.store
            store.scheduler.run_due()
            self._now = int(store.clock.now())  # whole seconds, as resources record time
        return self._now

    def base_url(self) -> str:
        """The URL the request came to, up to the API's root, without a trailing slash."""
        return self.state.request.base_url()


async def call_of(request: Request, scope: str, body: str = "") -> Call:
    """The call of an authenticated operation needing `scope` ("" for any valid credential),
    with its body when it takes one (`JSON_BODY`): 401 without a valid credential, 403 without
    the scope, 422 for a repeated query parameter, 400 or 413 for a body it cannot take.
    Records the scope on the request's state, which a replayed stored response checks."""
    sandbox: SandboxState = request.scope["state"]["sandbox"]
    state: RequestState = request.scope["state"]["request"]
    query = query_of(state)
    principal = state.principal
    if principal is None:  # no valid credential: the 401 that says why
        raw = state.authorization
        principal = sandbox.store.principal_for(None if raw is None else raw.decode("latin-1"))
    require_scope(principal, scope or None)
    state.operation = scope
    if len(query[1]) != len(query[0]):
        refuse_repeated(query[1])
    world = sandbox.store.world(principal.account_id, principal.environment)
    call = Call(sandbox, state, principal, world, request.path_params, query)
    if body:
        call.body = await json_of(state)
    return call


def query_of(state: RequestState) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The query as one value per name (the last) and as every (name, value) pair in order."""
    raw = state.request.query
    if not raw:
        return NO_QUERY, []
    pairs = query_pairs(raw)
    return dict(pairs), pairs


def refuse_repeated(pairs: list[tuple[str, str]]) -> None:
    """422 naming the first query parameter given more than once: the mock never silently
    picks one of two values."""
    seen: set[str] = set()
    for name, _ in pairs:
        if name in seen:
            raise ValidationError(f"Query parameter '{name}' was given more than once.", param=name)
        seen.add(name)


async def json_of(state: RequestState) -> dict[str, Any]:
    """The body as a JSON object (the object the idempotency fingerprint parsed from it, when
    it did)."""
    check_json_head(state.request.headers, MAX_BODY, any_content_type=False)
    parsed = state.parsed_body
    if parsed is not None:  # read and parsed whole, within the limit, by the idempotency step
        return parsed[1]
    return parse_json_object(await state.body(MAX_BODY), MAX_BODY)


async def form_of(state: RequestState) -> list[tuple[str, str]]:
    """The body as a form's (name, value) pairs, in order."""
    check_form_head(state.request.headers, MAX_BODY)
    return parse_form(await state.body(MAX_BODY), MAX_BODY)


def answer(
    body: bytes,
    status: int = 200,
    *,
    media_type: str | None = JSON,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The response of an operation: `body` with its headers in the order an ASGI framework
    sends them (`headers`, then Content-Length, then Content-Type)."""
    if headers is None and media_type == JSON:  # most answers: no dict to walk
        if status < 200 or status in (204, 304):
            lines = [_JSON_TYPE]
        else:
            lines = [(b"content-length", str(len(body)).encode()), _JSON_TYPE]
    else:
        lines = header_lines(status, body, media_type, headers)
    sent = Response(status_code=status)
    sent.body = body
    sent.raw_headers = lines  # as the operation made them, in their order
    return sent
