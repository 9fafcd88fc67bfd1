"""What the app answers a request no route serves: the API's 404 envelope, or a 307 redirect
to the path with its trailing slash toggled when a route serves that path (the query kept).

A path some route serves with another method is the 404 envelope too, never Starlette's 405
(`method_not_served`, the app's handler of the 405 its routes raise). Starlette's own slash
redirects are off in every router (`router`): a redirect is ours, with our headers.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote, urlsplit

from starlette.requests import Request as StarletteRequest
from starlette.responses import Response as StarletteResponse
from starlette.routing import BaseRoute, Match, Mount, Router
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocketClose

from mockserver.core.errors import NotFound
from mockserver.engine.journal import RequestState
from mockserver.engine.request import Response
from mockserver.web.adapter import send_response

_SAFE = ":/%#?=@[]!$&'()*+,;"  # what a redirect's Location leaves unquoted


def serves(routes: Sequence[BaseRoute], path: str) -> bool:
    """Whether some route of `routes` (those of a mount included) serves `path`, with any
    method."""
    return _serves(routes, {"type": "http", "method": "GET", "path": path, "root_path": ""})


def _serves(routes: Sequence[BaseRoute], scope: Scope) -> bool:
    for route in routes:
        match, child = route.matches(scope)
        if match is Match.NONE:
            continue
        if not isinstance(route, Mount) or _serves(route.routes, {**scope, **child}):
            return True
    return False


def unmatched_response(routes: Sequence[BaseRoute], state: RequestState) -> Response:
    """The redirect for a request no route serves, when the path with its trailing slash
    toggled is served and the path itself is not; else the 404 envelope (raised)."""
    request, path = state.request, state.path
    if path != "/" and not serves(routes, path):
        other = path.rstrip("/") if path.endswith("/") else path + "/"
        if serves(routes, other):
            url = request.url_of(other, request.query)
            location = quote(url, safe=_SAFE).encode("latin-1")
            return Response(307, [(b"location", location), (b"content-length", b"0")])
    raise _not_found(state)


def _not_found(state: RequestState) -> NotFound:
    request = state.request
    shown = urlsplit(request.url_of(state.path)).path
    return NotFound(f"Unrecognized request URL ({request.method} {shown}).")


async def unmatched(scope: Scope, receive: Receive, send: Send) -> None:
    """The default app of every router of the app: the answer to a request no route serves,
    judged against every route of the app (`scope["router"]`, the outermost router); a
    WebSocket is closed at once, as the API has none."""
    if scope["type"] != "http":
        await WebSocketClose()(scope, receive, send)
        return
    response = unmatched_response(scope["router"].routes, scope["state"]["request"])
    await send_response(response, send)


async def method_not_served(request: StarletteRequest, error: Exception) -> StarletteResponse:
    """The app's answer when a route serves the path but not the method: the 404 envelope, as
    for a path no route has."""
    raise _not_found(request.scope["state"]["request"])


def router(routes: Sequence[BaseRoute]) -> Router:
    """A router of `routes` (a mount's), answering what none serves as the app does."""
    return Router(list(routes), redirect_slashes=False, default=unmatched)
