"""The innermost layer: a request to its handler.

`/v1` routes are found by `RouteTable` and their operations served directly from the scope (no
Starlette Request or Response is built for them): no scan of every route's regex, no per-route
exception wrappers. Everything the table does not serve (the
control plane, unknown paths and methods, trailing slashes) goes through Starlette's router
behind its ExceptionMiddleware, exactly as it did when the whole app was a Starlette stack.
Either way an unknown URL or method ends as the 404 `not_found` envelope (`unknown_route`).
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Router
from starlette.types import Receive, Scope, Send

from mockserver.core.errors import NotFound
from mockserver.engine.calls import Headers
from mockserver.web.context import context_of
from mockserver.web.operations import json_head, render
from mockserver.web.routes import RouteTable


async def unknown_route(request: Request, exc: Exception) -> Response:
    """Unknown paths and methods are 404 `not_found` in the envelope (raised to the pipeline)."""
    raise NotFound(f"Unrecognized request URL ({request.method} {request.url.path}).")


class Dispatcher:
    """`/v1` by the route table, anything else by the router."""

    __slots__ = ("fallback", "router", "table")

    def __init__(self, router: Router) -> None:
        self.router = router
        self.table = RouteTable(router.routes)
        self.fallback = ExceptionMiddleware(router, handlers={HTTPException: unknown_route})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hit = None if scope.get("root_path") else self.table.lookup(scope["method"], scope["path"])
        if hit is None:
            await self.fallback(scope, receive, send)
            return
        endpoint, route, params = hit
        if "router" not in scope:
            scope["router"] = self.router
        scope["route"] = route
        scope["endpoint"] = endpoint
        scope["path_params"] = params
        answer = await route.server.serve(scope, receive)  # no Request or Response built
        headers = json_head(answer)
        if headers is not None:
            await _send_whole(scope, send, answer.status, headers, answer.body, answer.kept)
        else:
            await render(answer)(scope, receive, send)


async def _send_whole(
    scope: Scope, send: Send, status: int, headers: Headers, body: bytes, kept: bool
) -> None:
    """A whole response: to the pipeline's exchange in one call, else as the two messages."""
    context = context_of(scope)
    exchange = context.exchange if context is not None else None
    if exchange is not None and send is exchange:  # both messages in one call
        await exchange.respond(status, headers, body, kept)
        return
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
