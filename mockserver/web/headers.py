"""Reading a request header straight from the ASGI scope, without building Starlette's
`Headers` (a per-request cost on the hot path)."""

from __future__ import annotations

from typing import Any, cast

from starlette.types import Scope

# What ASGI servers give as `scope["headers"]` (uvicorn and httpx: a list of pairs of bytes).
# Walked as this type, compiled code compares names as bytes natively; walked as `Any`, every
# comparison is a generic call (12 of them in a POST's rate-limit step alone). `pairs` makes
# any other shape the ASGI spec allows (an iterable of two-item iterables) into this one.
RawHeaders = list[tuple[bytes, bytes]]


def first_header(scope: Scope, name: bytes) -> bytes | None:
    """The value of the first `name` header (lowercase, as servers give names), or None."""
    for key, value in pairs(scope.get("headers") or []):
        if key == name:
            return value
    return None


def credential_headers(scope: Scope) -> tuple[bytes | None, list[str]]:
    """The first `Authorization` value (None if absent) and every `Idempotency-Key` value, in
    one walk over the headers."""
    authorization: bytes | None = None
    keys: list[str] = []
    for name, value in pairs(scope.get("headers") or []):
        if name == b"authorization":
            authorization = value
        elif name == b"idempotency-key":
            keys.append(value.decode("latin-1"))
    return authorization, keys


def pairs(headers: Any) -> RawHeaders:
    """`headers` as a list of pairs of bytes: itself when it is one (checked natively, item by
    item, when compiled), else a copy of whatever iterable of two-item iterables it is."""
    if type(headers) is list:
        try:
            for name, value in cast(RawHeaders, headers):
                if type(name) is not bytes or type(value) is not bytes:
                    break  # as Python: the compiled walk has raised TypeError already
            else:
                return cast(RawHeaders, headers)
        except TypeError:
            pass
    return [(bytes(name), bytes(value)) for name, value in headers]
