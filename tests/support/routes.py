"""The routes an app serves, as (methods, full path) pairs: its Starlette routes, those of its
mounts (the control plane at `/_mock`, the inspector at `/_mock/ui`) with the mount's path
before theirs, in the order the router matches them."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount, Route


def route_table(app: Starlette) -> list[tuple[frozenset[str], str]]:
    """Every route of `app`: its methods (HEAD with GET) and its full path template."""
    return _table(app.routes, "")


def _table(routes: Sequence[BaseRoute], prefix: str) -> list[tuple[frozenset[str], str]]:
    found: list[tuple[frozenset[str], str]] = []
    for route in routes:
        if isinstance(route, Mount):
            found += _table(route.routes, prefix + route.path)
        elif isinstance(route, Route):
            found.append((frozenset(route.methods or ()), prefix + route.path))
    return found
