"""What GZipMiddleware decides, for the pipeline: whether a request accepts gzip (it then goes
through GZipMiddleware itself), and which responses its identity responder leaves alone.

For a request without gzip in `Accept-Encoding`, GZipMiddleware still wraps the app in its
identity responder, which only adds `Vary: Accept-Encoding` to large responses but, built per
request, re-normalizes its list of excluded content types and parses headers twice: about a
fifth of what the mock spent on a GET. The pipeline's `Exchange` makes the same decisions on
the same inputs (status 206, an existing Content-Encoding, an excluded content type, a first
body below the minimum size) with the exclusions prepared once;
tests/unit/web/test_exchange.py checks it sends what GZipMiddleware sends, headers in order
included.
"""

from __future__ import annotations

from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES
from starlette.types import Message, Scope

from mockserver.web.headers import RawHeaders, first_header, pairs

_EXCLUDED = frozenset(t.partition(";")[0].strip().lower() for t in DEFAULT_EXCLUDED_CONTENT_TYPES)


def accepts_gzip(scope: Scope) -> bool:
    """What GZipMiddleware asks: does the first Accept-Encoding header contain `gzip`?"""
    value = first_header(scope, b"accept-encoding")
    return value is not None and b"gzip" in value


def _left_alone(message: Message) -> bool:
    """Responses the identity responder passes through untouched."""
    if message["status"] == 206:
        return True
    encoded, content_type = _encoding_and_type(pairs(message["headers"]))
    if encoded:
        return True
    excluded = _EXCLUDED_BY_VALUE.get(content_type)
    if excluded is None:
        excluded = _excluded(content_type)
        if len(_EXCLUDED_BY_VALUE) < 256:  # the app sends a handful of content types
            _EXCLUDED_BY_VALUE[content_type] = excluded
    return excluded


def _encoding_and_type(headers: RawHeaders) -> tuple[bool, bytes | None]:
    """Whether a Content-Encoding header is present, and the first Content-Type value."""
    content_type: bytes | None = None
    for name, value in headers:
        if name == b"content-encoding":
            return True, content_type
        if name == b"content-type" and content_type is None:
            content_type = value
    return False, content_type


def _excluded(content_type: bytes | None) -> bool:
    """Whether GZipMiddleware leaves a response of this Content-Type value alone."""
    media_type = (content_type or b"").decode("latin-1").partition(";")[0].strip().lower()
    kinds = {media_type, media_type.partition("/")[0] + "/*"}
    if media_type.startswith("application/grpc+"):
        kinds.add("application/grpc")
    return not kinds.isdisjoint(_EXCLUDED)


_EXCLUDED_BY_VALUE: dict[bytes | None, bool] = {}
