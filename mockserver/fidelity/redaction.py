"""Secrets out of a recorded exchange, before anything of it is written.

A credential keeps enough of itself to tell keys apart in a recording (`Bearer sk_test_…full`:
its kind and its last 4 characters); every other secret is replaced by `[redacted]`, wherever
it is: a JSON body at any depth, a form body, a query string, a URL inside a value (the
pre-signed `download_url`, the `Location` of an OAuth redirect).
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import unquote_plus

REDACTED: Final = "[redacted]"
ELLIPSIS: Final = "\u2026"
SHORTEST_SHOWN: Final = 8  # a credential shorter than this (after its kind) shows nothing

# Fields whose value is a secret, in JSON bodies, form bodies and query strings alike.
SECRET_FIELDS: Final = frozenset(
    {"signing_secret", "access_token", "refresh_token", "client_secret", "code", "signature"}
)
# Headers whose value is a credential: kept as its kind and last 4 characters.
CREDENTIAL_HEADERS: Final = frozenset({"authorization", "proxy-authorization"})
# Headers whose value is a secret through and through.
SECRET_HEADERS: Final = frozenset({"x-mock-admin-token", "cookie", "set-cookie"})
# Headers whose value is a URL that may carry a secret in its query.
URL_HEADERS: Final = frozenset({"location", "content-location"})

_KIND: Final = re.compile(r"(sk_(?:test|live)_|whsec_|[a-z]{2,6}_)")
# A URL, or a path with a query, inside a text (a note, a message).
_URL: Final = re.compile(r"https?://[^\s\"'<>]+|/[\w\-./~%]*\?[^\s\"'<>]+")
_PARAM: Final = re.compile(r"(?:^|(?<=&))([^=&#]+)=([^&#]*)")


def credential(value: str) -> str:
    """`Bearer sk_test_mock_full` -> `Bearer sk_test_…full`; other schemes (Basic) and
    credentials too short to keep 4 characters of become `<scheme> [redacted]`."""
    scheme, _, secret = value.strip().partition(" ")
    if not secret:
        scheme, secret = "", scheme
    kind = _KIND.match(secret)
    prefix = kind.group(0) if kind else ""
    rest = secret[len(prefix) :]
    if (scheme and scheme.lower() != "bearer") or len(rest) < SHORTEST_SHOWN:
        shown = REDACTED
    else:
        shown = f"{prefix}{ELLIPSIS}{rest[-4:]}"
    return f"{scheme} {shown}".strip()


def headers(pairs: dict[str, str]) -> dict[str, str]:
    """A copy of `pairs` (lowercase names) with every secret header value redacted."""
    out: dict[str, str] = {}
    for name, value in pairs.items():
        if name in CREDENTIAL_HEADERS:
            out[name] = credential(value)
        elif name in SECRET_HEADERS:
            out[name] = REDACTED
        elif name in URL_HEADERS:
            out[name] = url(value)
        else:
            out[name] = value
    return out


def query(pairs: dict[str, Any]) -> dict[str, Any]:
    """Query or form fields, with the values of secret fields redacted."""
    return {
        name: REDACTED if name in SECRET_FIELDS else _text(value) for name, value in pairs.items()
    }


def url(value: str) -> str:
    """A URL (or a path with a query) with the values of its secret query parameters
    redacted; everything else, encoding included, as it was."""

    def hide(found: re.Match[str]) -> str:
        if unquote_plus(found.group(1)) in SECRET_FIELDS:
            return f"{found.group(1)}={REDACTED}"
        return found.group(0)

    base, mark, rest = value.partition("?")
    return base + mark + _PARAM.sub(hide, rest) if mark else value


def json_value(value: Any, parent: str = "") -> Any:
    """A JSON value with every secret field redacted at any depth, and secrets in URLs too.
    `code` inside an `error` object is the RFC 6749 error code (`invalid_grant`), not an
    authorization code, and is kept."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for name, item in value.items():
            secret = name in SECRET_FIELDS and not (name == "code" and parent == "error")
            out[name] = REDACTED if secret and item is not None else json_value(item, name)
        return out
    if isinstance(value, list):
        return [json_value(item, parent) for item in value]
    return _text(value)


def _text(value: Any) -> Any:
    """A string with the secrets of any URL inside it redacted; other values as they are."""
    if isinstance(value, str) and "?" in value:
        return _URL.sub(lambda found: url(found.group(0)), value)
    if isinstance(value, list):
        return [_text(item) for item in value]
    return value
