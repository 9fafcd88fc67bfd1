"""The request's query parameters, parsed as Starlette parses them, for less.

`Request.query_params` runs `parse_qsl` and then builds the multidict twice over (its items and
dict, then again with `str()` of each); `Mapping.get` of a missing name raises and catches a
KeyError. A list request reads four names, most of them absent. `Query` is the same multidict
(a `QueryParams`, equal to Starlette's for every query) with a dict `get`, and a query with
nothing to unquote (no `%`, no `+`, the usual case) is split here, exactly as `parse_qsl` with
`keep_blank_values=True` splits it: on `&`, empty fields skipped, a field without `=` has the
value "".
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any
from urllib.parse import parse_qsl

from starlette.datastructures import QueryParams
from starlette.requests import Request


class Query(QueryParams):
    """A QueryParams whose `get` is a dict lookup (and equal to a QueryParams of the same
    items, as two QueryParams are)."""

    def get(self, key: Any, default: Any = None) -> Any:
        return self._dict.get(key, default)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, QueryParams):
            return False
        return sorted(self._list, key=itemgetter(0)) == sorted(other._list, key=itemgetter(0))

    __hash__ = None  # type: ignore[assignment]  # as a QueryParams: unhashable


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


def parse_query(raw: bytes) -> Query:
    """`QueryParams(raw)`'s items and values, as a `Query`."""
    text = raw.decode("latin-1")
    if "%" in text or "+" in text:
        return Query(raw)
    items = query_pairs(raw)
    query = Query.__new__(Query)
    query._list = items
    query._dict = dict(items)
    return query


class ApiRequest(Request):
    """The request the `/v1` dispatcher hands its endpoints: its query parsed by `parse_query`."""

    @property
    def query_params(self) -> QueryParams:
        query: Query | None = self.__dict__.get("_query")
        if query is None:
            query = self.__dict__["_query"] = parse_query(self.scope["query_string"])
        return query
