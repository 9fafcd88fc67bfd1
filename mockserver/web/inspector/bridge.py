"""The inspector's pages as routes of the sandbox: the sandbox finds and guards nothing of
them but their paths; each is served by its Starlette endpoint from a scope made of the
sandbox's request, and its Starlette response becomes the sandbox's `Response`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import Response as StarletteResponse

from mockserver.core.first_call import imported_on_first_call
from mockserver.engine.journal import RequestState
from mockserver.engine.request import INSPECTOR, MAX_BODY, Request, Response
from mockserver.engine.routing import Route
from mockserver.web.adapter import receive_once

Endpoint = Callable[[StarletteRequest], Awaitable[StarletteResponse]]
ORIGIN = "mockserver.request"  # the scope's key of the sandbox's request (for triggers)
BASE = INSPECTOR  # where the inspector's pages are


def later(module: str, name: str) -> Endpoint:
    """The endpoint `name` of the inspector's `module`, imported by the first request for it:
    the pages, forms and their view models cost every app built (each pytest session's) a few
    milliseconds, and most are never opened."""
    return imported_on_first_call(f"mockserver.web.inspector.{module}", name)


def page_route(app: Starlette, methods: list[str], path: str, endpoint: Endpoint) -> Route:
    """A sandbox route serving `endpoint` of the app `app`."""

    async def serve(state: RequestState, params: dict[str, Any]) -> Response:
        request = state.request
        body = await state.body(MAX_BODY)
        scope = _scope(app, request, state.path, params)
        answer = await endpoint(StarletteRequest(scope, receive_once(body)))
        return Response(answer.status_code, list(answer.raw_headers), bytes(answer.body))

    return Route(methods, path, serve)


def _scope(app: Starlette, request: Request, path: str, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": request.query,
        "headers": request.headers,
        "client": request.client,
        "server": request.server,
        "app": app,
        "path_params": params,
        ORIGIN: request,
    }
