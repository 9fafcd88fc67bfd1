"""Limits on the request line: a query string the mock refuses before anything reads it.

Starlette decodes a query leniently (invalid UTF-8 becomes U+FFFD, a stray `%` stays as it is,
raw non-ASCII bytes are read as Latin-1), so a client bug would silently become a different
value. The mock answers 400 `bad_request` instead, and caps the query's size so a huge one
costs nothing to refuse. (A repeated parameter is the engine's 422: `engine.api`.)
"""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

from starlette.types import Scope

from mockserver.core.errors import BadRequest

MAX_QUERY = 8 * 1024  # bytes of the raw query string
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def check_query(scope: Scope) -> None:
    """400 for a query string over `MAX_QUERY` bytes, with raw non-ASCII bytes, with a `%`
    not followed by two hex digits, or whose percent-decoded bytes are not UTF-8."""
    query: bytes = scope.get("query_string", b"")
    if not query:
        return
    if len(query) > MAX_QUERY:
        raise BadRequest(f"The query string exceeds the limit of {MAX_QUERY} bytes.")
    if not query.isascii():
        raise BadRequest("The query string must be ASCII; percent-encode other characters.")
    if b"%" in query:
        bad = _BAD_ESCAPE.search(query)
        if bad is not None:
            raise BadRequest(
                f"Invalid percent-encoding in the query string at position {bad.start()}."
            )
        try:
            unquote_to_bytes(query).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("The query string's percent-encoded bytes are not UTF-8.") from None
