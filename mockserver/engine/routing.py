"""Finding a request's handler: the `/v1` operations, the `/_mock` control plane and the
inspector's pages, in that order, with the answers an unknown URL gets.

A route is a method set and a path template (`/v1/documents/{doc_id}`, `{seq:int}` for a
number), matched as a whole path segment by segment. A GET route serves HEAD too. The first
route whose path and method match serves the request. Otherwise: a path some route has with
another method is 404 `not_found`; a path that some route has with its trailing slash added or
removed is a 307 redirect there (the query kept); anything else is 404 `not_found`.

`/v1` requests are found by a direct lookup (the first segment after `/v1`, then the segment
count and the method) rather than a scan of every template; the scan answers what the lookup
does not.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import quote, urlsplit

from mockserver.core.errors import NotFound
from mockserver.engine.request import Request, Response

Params = dict[str, Any]
Handler = Callable[[Any, Params], Awaitable[Response]]  # (the request's turn, path params)

_PARAM = re.compile(r"{([a-zA-Z_][a-zA-Z0-9_]*)(?::(int|str))?}")
_SAFE = ":/%#?=@[]!$&'()*+,;"  # what a redirect's Location leaves unquoted
# By template: its regex and its int-typed parameters (every sandbox has the same templates).
_COMPILED: dict[str, tuple[str, tuple[str, ...]]] = {}


class Route:
    """One method set on one path template, served by `handler`."""

    __slots__ = ("_pattern", "handler", "methods", "regex", "template", "typed")

    def __init__(self, methods: Sequence[str], template: str, handler: Handler) -> None:
        self.methods = frozenset({*methods, "HEAD"} if "GET" in methods else methods)
        self.template = template
        self.handler = handler
        compiled = _COMPILED.get(template)
        if compiled is None:
            compiled = _COMPILED[template] = _compile(template)
        self.regex, self.typed = compiled
        # Compiled by the first path matched against it: the direct lookup of `Router` finds
        # most requests' routes without one, and compiling them all would cost a sandbox's
        # first build a few milliseconds.
        self._pattern: re.Pattern[str] | None = None

    def match(self, path: str) -> Params | None:
        """The path parameters if `path` is this route's, else None."""
        pattern = self._pattern
        if pattern is None:
            pattern = self._pattern = re.compile(self.regex)
        found = pattern.match(path)
        if found is None:
            return None
        params: Params = dict(found.groupdict())
        for name in self.typed:
            params[name] = int(params[name])
        return params


def _compile(template: str) -> tuple[str, tuple[str, ...]]:
    regex, typed, at = "^", [], 0
    for found in _PARAM.finditer(template):
        regex += re.escape(template[at : found.start()])
        name, kind = found.group(1), found.group(2)
        regex += f"(?P<{name}>[0-9]+)" if kind == "int" else f"(?P<{name}>[^/]+)"
        if kind == "int":
            typed.append(name)
        at = found.end()
    return regex + re.escape(template[at:]) + "$", tuple(typed)


class _Plain:
    """A plain `/v1` route as the direct lookup sees it: its number of segments, its methods,
    the (segment index, text) of its literal segments and the (segment index, name) of its
    parameters."""

    __slots__ = ("literals", "methods", "names", "route", "size")

    def __init__(
        self,
        size: int,
        literals: list[tuple[int, str]],
        names: list[tuple[int, str]],
        route: Route,
    ) -> None:
        self.size = size
        self.methods = route.methods
        self.literals = literals
        self.names = names
        self.route = route

    def params(self, parts: list[str]) -> Params | None:
        """The route's parameters if the path split into `parts` is its, else None (a
        parameter matches one segment, never an empty one)."""
        for i, text in self.literals:
            if parts[i] != text:
                return None
        params: Params = {}
        for i, name in self.names:
            value = parts[i]
            if not value:
                return None
            params[name] = value
        return params


Layout = tuple[()] | tuple[int, str, list[tuple[int, str]], list[tuple[int, str]]]
_LAYOUTS: dict[str, Layout] = {}  # by template: what the direct lookup needs of it


def _layout(template: str, typed: tuple[str, ...]) -> Layout:
    """(segments, first segment after /v1, literal segments, parameter segments) of a
    template the direct lookup serves; () for one it leaves to the scan."""
    parts = template.split("/")
    if parts[1] != "v1" or typed or parts[2].startswith("{"):
        return ()
    literals = [(i, p) for i, p in enumerate(parts) if not p.startswith("{")]
    names = [(i, p[1:-1]) for i, p in enumerate(parts) if p.startswith("{")]
    return len(parts), parts[2], literals, names


class Router:
    """Every route of a sandbox, and the direct lookup of its plain `/v1` ones."""

    __slots__ = ("_buckets", "routes")

    def __init__(self, routes: Sequence[Route]) -> None:
        self.routes = list(routes)
        # By the first segment after `/v1`, in the routes' order (a str key: no tuple to make
        # and hash per request).
        self._buckets: dict[str, list[_Plain]] = {}
        for route in self.routes:
            layout = _LAYOUTS.get(route.template)
            if layout is None:
                layout = _LAYOUTS[route.template] = _layout(route.template, route.typed)
            if not layout:
                continue  # the control plane, typed parameters, a parameter first: scanned
            size, first, literals, names = layout
            self._buckets.setdefault(first, []).append(_Plain(size, literals, names, route))

    def add(self, routes: Sequence[Route]) -> None:
        """More routes, after those there are (the inspector's pages)."""
        self.routes.extend(routes)

    def find(self, method: str, path: str) -> tuple[Route, Params] | None:
        """The route serving `method` on `path` and its parameters, or None."""
        parts = path.split("/")
        if len(parts) >= 3 and parts[1] == "v1":
            bucket = self._buckets.get(parts[2])
            if bucket is not None:
                size = len(parts)
                for plain in bucket:
                    if plain.size == size and method in plain.methods:
                        params = plain.params(parts)
                        if params is not None:
                            return plain.route, params
        for route in self.routes:
            if method in route.methods:
                matched = route.match(path)
                if matched is not None:
                    return route, matched
        return None

    def unmatched(self, request: Request, path: str) -> Response:
        """The answer to a request no route serves: 404, or a redirect to the path with its
        trailing slash toggled when a route has that path."""
        if path != "/" and not any(route.match(path) is not None for route in self.routes):
            other = path.rstrip("/") if path.endswith("/") else path + "/"
            if any(route.match(other) is not None for route in self.routes):
                url = request.url_of(other, request.query)
                location = quote(url, safe=_SAFE).encode("latin-1")
                return Response(307, [(b"location", location), (b"content-length", b"0")])
        shown = urlsplit(request.url_of(path)).path
        raise NotFound(f"Unrecognized request URL ({request.method} {shown}).")
