"""The web side of the engine's operations: one route per `Operation`.

`OperationServer.serve` turns the ASGI request into the engine's typed call once, straight from
the scope (the principal the traffic layer resolved, or the `Authorization` header for the
engine to resolve; the routed region; path parameters, query and the base URL), reads and
parses the body the operation takes, and gives the engine's `Answer`. It records in the
request's context that an operation admitted the caller, with the permission it required, for
idempotent replays. The dispatcher calls it directly; `OperationRoute` also serves it to
Starlette's router as an ordinary endpoint (`render` makes the answer a Response).
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope

from mockserver.core.errors import ApiError
from mockserver.engine.api import Api
from mockserver.engine.calls import JSON, Answer, Headers, Operation
from mockserver.web.body import read_json
from mockserver.web.context import context_of
from mockserver.web.form import read_form
from mockserver.web.headers import first_header
from mockserver.web.query import query_pairs

NO_QUERY: dict[str, str] = {}  # what a request without a query string reads (never written)
_JSON_HEADER = (b"content-type", JSON.encode())


def render(answer: Answer) -> Response:
    """The Starlette response of an operation's answer."""
    return Response(
        answer.body,
        status_code=answer.status,
        headers=answer.headers,
        media_type=answer.media_type,
    )


def json_head(answer: Answer) -> Headers | None:
    """The headers `render` would give an answer of JSON with no extra headers (the length,
    then the type), or None for any other answer."""
    if answer.headers is not None or answer.media_type != JSON:
        return None
    status = answer.status
    if status < 200 or status in (204, 304):  # Starlette sends no length for these
        return [_JSON_HEADER]
    return [(b"content-length", str(len(answer.body)).encode()), _JSON_HEADER]


def _base_url(scope: Scope) -> Callable[[], str]:
    return lambda: str(Request(scope).base_url).rstrip("/")


class OperationServer:
    """Serves one operation of an `Api` from an ASGI request."""

    __slots__ = ("api", "operation")

    def __init__(self, api: Api, operation: Operation) -> None:
        self.api = api
        self.operation = operation

    async def serve(self, scope: Scope, receive: Receive) -> Answer:
        """The operation's answer to the request, or the ApiError that refuses it; the scope
        holds its `path_params`."""
        api, operation = self.api, self.operation
        context = context_of(scope)
        known = context.principal if context is not None else None
        authorization = None
        if known is None:
            raw = first_header(scope, b"authorization")
            authorization = raw.decode("latin-1") if raw is not None else None
        principal = api.authorize(operation, authorization, known)
        if principal is not None and context is not None:
            context.operation = operation.scope
        raw_query: bytes = scope["query_string"]
        if raw_query:
            pairs = query_pairs(raw_query)
            query: dict[str, str] = dict(pairs)  # the last value of a name, as QueryParams
        else:
            query, pairs = NO_QUERY, []
        call = api.admit(
            principal,
            context.region if context is not None else None,
            scope["path_params"],
            query,
            pairs,
            _base_url(scope),
            authorization,
        )
        try:
            if operation.body == "json":
                call.body = await read_json(scope, receive)
            elif operation.body == "form":
                call.body = await read_form(Request(scope, receive))
            return api.run(operation, call)
        except ApiError as error:
            if operation.refusal is None:
                raise
            raise operation.refusal(error) from None

    async def endpoint(self, request: Request) -> Response:
        """The same, as a Starlette endpoint (for Starlette's router)."""
        return render(await self.serve(request.scope, request.receive))


class OperationRoute(Route):
    """The route of one operation: Starlette's router calls its endpoint, the dispatcher its
    `server` directly."""

    def __init__(self, api: Api, operation: Operation) -> None:
        self.server = OperationServer(api, operation)
        endpoint = self.server.endpoint
        super().__init__(
            operation.path, endpoint, methods=[operation.method], name=operation.run.__name__
        )
