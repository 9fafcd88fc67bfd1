"""The routes of `/v1`, one per operation of the engine, and the table that finds them.

Regional prefixes are stripped by the pipeline before routing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NamedTuple

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from mockserver.engine.api import Api
from mockserver.web.operations import OperationRoute


def v1_routes(api: Api) -> list[BaseRoute]:
    """A route per operation of the engine's table, in its order."""
    return [OperationRoute(api, op) for op in api.operations]


# (endpoint, the route, its path parameters) of a request the table serves.
Hit = tuple[Callable[[Request], Awaitable[Response]], OperationRoute, dict[str, str]]


class _Template(NamedTuple):
    literals: tuple[tuple[int, str], ...]  # (segment index, text) of the literal segments
    params: tuple[tuple[int, str], ...]  # (segment index, name) of the parameters
    route: OperationRoute


class RouteTable:
    """A direct lookup of `/v1` routes by method, segment count and first segment after `/v1`,
    instead of Starlette's scan of every route's regex.

    It answers only what it is sure of: the literal segments equal and every parameter
    non-empty, which is exactly when the route's `[^/]+` pattern matches (no two routes of the
    table match one path). Anything else (another method of a known path, trailing slashes,
    unknown paths, `/_mock`) gets None and goes to the Starlette router, which answers as it
    always did (404 envelope, redirects)."""

    __slots__ = ("_buckets",)

    def __init__(self, routes: list[BaseRoute]) -> None:
        self._buckets: dict[tuple[str, int, str], list[_Template]] = {}
        for route in routes:
            if not isinstance(route, OperationRoute):  # /_mock and the inspector: the router's
                continue
            parts = route.path.split("/")
            literals = tuple((i, p) for i, p in enumerate(parts) if not p.startswith("{"))
            params = tuple((i, p[1:-1]) for i, p in enumerate(parts) if p.startswith("{"))
            if any(":" in name for _, name in params) or parts[2].startswith("{"):
                continue  # typed parameters and a parameter first: left to the router
            for method in route.methods or ():
                key = (method, len(parts), parts[2])
                self._buckets.setdefault(key, []).append(_Template(literals, params, route))

    def lookup(self, method: str, path: str) -> Hit | None:
        parts = path.split("/")
        if len(parts) < 3:
            return None
        for template in self._buckets.get((method, len(parts), parts[2]), ()):
            for i, text in template.literals:
                if parts[i] != text:
                    break
            else:
                params: dict[str, str] = {}
                for i, name in template.params:
                    if not parts[i]:
                        break
                    params[name] = parts[i]
                else:
                    return template.route.endpoint, template.route, params
        return None
