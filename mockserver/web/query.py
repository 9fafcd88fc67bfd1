"""The request's query parameters, parsed as Starlette parses them, for less.

An operation reads its query as the (name, value) pairs `QueryParams(raw)` would hold and a
dict of them (the last value of a name, as `QueryParams.get` gives), without building the
multidict. A query with nothing to unquote (no `%`, no `+`, the usual case) is split here,
exactly as `parse_qsl` with `keep_blank_values=True` splits it: on `&`, empty fields skipped, a
field without `=` has the value "".
"""

from __future__ import annotations

from urllib.parse import parse_qsl


def query_pairs(raw: bytes) -> list[tuple[str, str]]:
    """The (name, value) pairs of a raw query string, in order, repeats included: exactly the
    items `QueryParams(raw)` holds."""
    text = raw.decode("latin-1")
    if "%" in text or "+" in text:
        return parse_qsl(text, keep_blank_values=True)
    items: list[tuple[str, str]] = []
    for field in text.split("&") if text else ():
        if field:
            name, _, value = field.partition("=")
            items.append((name, value))
    return items
