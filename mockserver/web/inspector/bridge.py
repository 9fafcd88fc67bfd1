"""How an inspector endpoint is served: from a scope made of the sandbox's request (its path
without the mount's root, its body read whole up to the control plane's limit, the sandbox's
request itself under `ORIGIN` for the buttons that make requests), so a page sees the request
as the control plane does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request as StarletteRequest
from starlette.responses import Response as StarletteResponse
from starlette.types import Scope

from mockserver.engine.journal import RequestState
from mockserver.engine.request import INSPECTOR, MAX_BODY, Request
from mockserver.web.adapter import receive_once

Endpoint = Callable[[StarletteRequest], Awaitable[StarletteResponse]]
ORIGIN = "mockserver.request"  # the scope's key of the sandbox's request (for triggers)
BASE = INSPECTOR  # where the inspector's pages are


def page(endpoint: Endpoint) -> Endpoint:
    """`endpoint`, served from the scope of the sandbox's request."""

    async def serve(request: StarletteRequest) -> StarletteResponse:
        state: RequestState = request.scope["state"]["request"]
        body = await state.body(MAX_BODY)
        scope = _scope(request.scope, state.request, state.path)
        return await endpoint(StarletteRequest(scope, receive_once(body)))

    return serve


def _scope(outer: Scope, request: Request, path: str) -> dict[str, Any]:
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
        "app": outer["app"],
        "path_params": outer["path_params"],
        ORIGIN: request,
    }
