"""The web side of the engine's operations: a Starlette endpoint per `Operation`.

Each endpoint turns the HTTP request into the engine's typed call once (the principal the
traffic layer resolved, or the `Authorization` header for the engine to resolve; the routed
region; path parameters, query and the base URL), reads and parses the body the operation
takes, and renders the engine's `Answer` as a response. It records in the request's context
that an operation admitted the caller, with the permission it required, for idempotent replays.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.errors import ApiError
from mockserver.engine.api import Api
from mockserver.engine.calls import JSON, Answer, Operation
from mockserver.web.body import read_json_object
from mockserver.web.context import context_of
from mockserver.web.form import read_form
from mockserver.web.render import JsonBytes

Endpoint = Callable[[Request], Awaitable[Response]]


def render(answer: Answer) -> Response:
    """The response of an operation's answer."""
    if answer.headers is None and answer.media_type == JSON:
        return JsonBytes(answer.body, answer.status, kept=answer.kept)
    return Response(
        answer.body,
        status_code=answer.status,
        headers=answer.headers,
        media_type=answer.media_type,
    )


def endpoint_for(api: Api, operation: Operation) -> Endpoint:
    """The Starlette endpoint that serves `operation` of `api`."""

    async def serve(request: Request) -> Response:
        context = context_of(request.scope)
        known = context.principal if context is not None else None
        authorization = request.headers.get("authorization") if known is None else None
        principal = api.authorize(operation, authorization, known)
        if principal is not None and context is not None:
            context.operation = operation.scope
        query = request.query_params
        call = api.admit(
            principal,
            context.region if context is not None else None,
            request.path_params,
            query,
            query.multi_items() if request.scope["query_string"] else [],
            lambda: str(request.base_url).rstrip("/"),
            authorization,
        )
        try:
            if operation.body == "json":
                call.body = await read_json_object(request)
            elif operation.body == "form":
                call.body = await read_form(request)
            answer = api.run(operation, call)
        except ApiError as error:
            if operation.refusal is None:
                raise
            raise operation.refusal(error) from None
        return render(answer)

    serve.__name__ = serve.__qualname__ = operation.run.__name__
    return serve
