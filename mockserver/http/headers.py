"""Reading a request header straight from the ASGI scope, without building Starlette's
`Headers` (a per-request cost on the hot path)."""

from __future__ import annotations

from starlette.types import Scope


def first_header(scope: Scope, name: bytes) -> bytes | None:
    """The value of the first `name` header (lowercase, as servers give names), or None."""
    for key, value in scope.get("headers", ()):
        if key == name:
            found: bytes = value
            return found
    return None
