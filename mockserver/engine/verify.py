"""Request verification over the journal: did the client send what the test expected, how
many times, and if not, which requests came closest and how they differ.

`parse_matcher` checks a matcher (a JSON object: `method`, `path`, `key`, `query`, `headers`,
`body`, `status`; paths and bodies match as in scenario rules and steps) and its expectation
(`count`, `at_least` or `at_most`, and `since_seq`); a bad one is a ValidationError naming the
field. An entry matches when it has no difference; the near misses are the (at most 3)
non-matching entries with the fewest differences. `verify` counts the matches in one walk,
dropping each entry at its first difference, and only when the count fails walks again, newest
first, for the closest misses. The cheap fields (method, path, status, key) are looked at first,
their answers kept per distinct path and credential; the costly ones (query, headers, body)
only for entries that might still match or be among the closest. A full 10,000-entry journal
takes a few milliseconds (`python -m benchmarks.verify_journal`).

No HTTP here: the control plane hands in the parsed JSON body and renders the answer.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any, Final, final
from urllib.parse import parse_qsl

import orjson

from mockserver.core.errors import ValidationError
from mockserver.domain.auth import mask
from mockserver.engine.journal import Entry, Headers
from mockserver.scenarios.matching import ANY, PathPattern, PatternError, contains

NEAR_MISSES = 3
_FIELDS = frozenset({"method", "path", "key", "query", "headers", "body", "status", "account"})
_EXPECTATIONS = ("count", "at_least", "at_most")
_OTHER = frozenset({*_EXPECTATIONS, "since_seq", "matcher"})
_REGION_PREFIXES = ("/us/v1", "/eu/v1")
MISSING: Final = object()  # no body in the matcher, or an entry body that is not whole JSON

Difference = dict[str, Any]


@final
class Matcher:
    """A checked matcher and its expectation."""

    __slots__ = (
        "account",
        "at_least",
        "at_most",
        "body",
        "headers",
        "key",
        "methods",
        "path",
        "query",
        "shown",
        "since_seq",
        "statuses",
    )

    def __init__(self) -> None:
        self.methods: frozenset[str] | None = None
        self.account: str | None = None  # only the requests of this account's sandbox
        self.path: PathPattern | None = None
        self.key: str | None = None
        self.query: dict[str, str] = {}
        self.headers: dict[str, str] = {}
        self.body: Any = MISSING
        self.statuses: frozenset[int] | None = None
        self.at_least = 1
        self.at_most: int | None = None
        self.since_seq = 0
        self.shown: dict[str, Any] = {}  # the matcher as given, for messages

    def admits(self, matched: int) -> bool:
        """Whether `matched` entries meet the expectation."""
        return matched >= self.at_least and (self.at_most is None or matched <= self.at_most)


def _without_region(path: str) -> str:
    if path[:6] in _REGION_PREFIXES and (len(path) == 6 or path[6] == "/"):
        return path[3:]
    return path


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(f"'{name}' must be a whole number, 0 or more.", param=name)
    return value


def _string_map(value: Any, name: str, lower: bool) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValidationError(f"'{name}' must be an object of strings.", param=name)
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(item, str):
            raise ValidationError(
                f"'{name}.{key}' must be a string (a value, or \"*\" for any).",
                param=f"{name}.{key}",
            )
        out[key.lower() if lower else key] = item
    return out


def parse_matcher(body: dict[str, Any]) -> Matcher:
    """The matcher of a verify request: the body itself, or its `matcher` member, with
    `count` | `at_least` | `at_most` and `since_seq` beside it; 422 naming a bad field."""
    spec = body
    if "matcher" in body:
        spec = body["matcher"]
        if not isinstance(spec, dict):
            raise ValidationError("'matcher' must be an object.", param="matcher")
        stray = sorted(set(body) - _OTHER)
        if stray:
            raise ValidationError(
                f"'{stray[0]}' belongs inside 'matcher' (or send the matcher flat).",
                param=stray[0],
            )
    unknown = sorted(set(spec) - _FIELDS - (set() if spec is not body else _OTHER))
    if unknown:
        raise ValidationError(
            f"Unknown matcher field '{unknown[0]}'; expected some of: "
            "method, path, key, query, headers, body, status, account.",
            param=unknown[0],
        )
    m = Matcher()
    m.shown = {name: spec[name] for name in spec if name in _FIELDS}
    _parse_fields(m, spec)
    given = [name for name in _EXPECTATIONS if name in body]
    if len(given) > 1:
        raise ValidationError(
            "Give at most one of 'count', 'at_least' and 'at_most'.", param=given[1]
        )
    if given:
        name = given[0]
        number = _count(body[name], name)
        m.at_least = number if name != "at_most" else 0
        m.at_most = number if name != "at_least" else None
    if "since_seq" in body:
        m.since_seq = _count(body["since_seq"], "since_seq")
    return m


def _parse_fields(m: Matcher, spec: dict[str, Any]) -> None:
    if "method" in spec:
        raw = spec["method"]
        methods = [raw] if isinstance(raw, str) else raw
        if (
            not isinstance(methods, list)
            or not methods
            or not all(isinstance(x, str) and x.strip() for x in methods)
        ):
            raise ValidationError(
                "'method' must be a method name or a non-empty list of them.", param="method"
            )
        m.methods = frozenset(x.strip().upper() for x in methods)
    if "path" in spec:
        text = spec["path"]
        if not isinstance(text, str) or not text.startswith("/"):
            raise ValidationError("'path' must be a path starting with '/'.", param="path")
        try:
            m.path = PathPattern(_without_region(text))
        except PatternError as error:
            raise ValidationError(
                f"'path' is not a valid pattern: {error}.", param="path"
            ) from None
    if "key" in spec:
        if not isinstance(spec["key"], str) or not spec["key"]:
            raise ValidationError("'key' must be an API key or access token.", param="key")
        m.key = spec["key"]
    if "query" in spec:
        m.query = _string_map(spec["query"], "query", lower=False)
    if "headers" in spec:
        m.headers = _string_map(spec["headers"], "headers", lower=True)
    if "body" in spec:
        m.body = spec["body"]
    if "account" in spec:
        if not isinstance(spec["account"], str) or not spec["account"]:
            raise ValidationError("'account' must be an account id.", param="account")
        m.account = spec["account"]
    if "status" in spec:
        raw = spec["status"]
        statuses = raw if isinstance(raw, list) else [raw]
        if not statuses or not all(type(s) is int and 100 <= s <= 599 for s in statuses):
            raise ValidationError(
                "'status' must be an HTTP status code or a list of them.", param="status"
            )
        m.statuses = frozenset(statuses)


# -- differences ------------------------------------------------------------------------------


def _shown_key(key: str) -> str:
    return key if "*" in key else mask(key)


def _cheap(m: Matcher, entry: Entry) -> list[Difference]:
    """The differences in method, path, status and key."""
    out: list[Difference] = []
    if m.methods is not None and entry.method not in m.methods:
        out.append({"field": "method", "expected": m.shown["method"], "actual": entry.method})
    if m.path is not None and not m.path.matches(_without_region(entry.path)):
        out.append({"field": "path", "expected": m.path.text, "actual": entry.path})
    if m.statuses is not None and entry.status not in m.statuses:
        out.append({"field": "status", "expected": m.shown["status"], "actual": entry.status})
    if m.key is not None:
        credential = entry.credential
        if credential is None or (credential != m.key and mask(credential) != m.key):
            actual = None if credential is None else mask(credential)
            out.append({"field": "key", "expected": _shown_key(m.key), "actual": actual})
    return out


def _costly(m: Matcher, entry: Entry) -> list[Difference]:
    """The differences in query, headers and body."""
    out: list[Difference] = []
    if m.query:
        query = dict(parse_qsl(entry.query, keep_blank_values=True))
        _map_differences(m.query, query, "query.", out)
    if m.headers:
        _map_differences(m.headers, _header_map(entry.request_headers), "headers.", out)
    if m.body is not MISSING:
        _body_differences(_entry_body(entry), m.body, "body", out)
    return out


def _map_differences(
    expected: dict[str, str], actual: dict[str, str], prefix: str, out: list[Difference]
) -> None:
    for name, value in expected.items():
        got = actual.get(name)
        if got is None or (value != ANY and got != value):
            out.append({"field": prefix + name, "expected": value, "actual": got})


def _header_map(headers: Headers) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw_name, raw_value in headers:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def _entry_body(entry: Entry) -> Any:
    data = entry.request_body
    if not data or entry.request_size != len(data):
        return MISSING
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return MISSING


def _pointer_part(name: object) -> str:
    return "/" + str(name).replace("~", "~0").replace("/", "~1")


def _body_differences(actual: Any, expected: Any, where: str, out: list[Difference]) -> None:
    """Every place where `expected` is not a subset of `actual` (as scenario steps compare
    bodies), each as a `body/json/pointer` field."""
    if actual is MISSING:
        out.append({"field": where, "expected": expected, "actual": None})
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for name, value in expected.items():
            child = where + _pointer_part(name)
            if name not in actual:
                out.append({"field": child, "expected": value, "actual": None})
            else:
                _body_differences(actual[name], value, child, out)
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _body_differences(a, e, where + _pointer_part(index), out)
        return
    if not contains(actual, expected):
        out.append({"field": where, "expected": expected, "actual": actual})


# -- the walk ---------------------------------------------------------------------------------


class _Plan:
    """A matcher's questions about one entry, with the answers that repeat across entries
    (paths, credentials, query strings) kept for the walk."""

    __slots__ = ("_keys", "_paths", "_queries", "headers", "m")

    def __init__(self, m: Matcher) -> None:
        self.m = m
        self._paths: dict[str, bool] = {}
        self._keys: dict[str | None, bool] = {}
        self._queries: dict[str, dict[str, str]] = {}
        self.headers = [(name.encode("latin-1"), value) for name, value in m.headers.items()]

    def path_ok(self, path: str) -> bool:
        hit = self._paths.get(path)
        if hit is None:
            assert self.m.path is not None
            hit = self._paths[path] = self.m.path.matches(_without_region(path))
        return hit

    def key_ok(self, entry: Entry) -> bool:
        credential = entry.credential
        hit = self._keys.get(credential)
        if hit is None:
            key = self.m.key
            hit = credential is not None and (credential == key or mask(credential) == key)
            self._keys[credential] = hit
        return hit

    def costly(self, entry: Entry, limit: int) -> int:
        """How many of the query, header and body fields differ, counting no further than
        `limit`."""
        m = self.m
        count = 0
        if m.query:
            query = self._queries.get(entry.query)
            if query is None:
                query = dict(parse_qsl(entry.query, keep_blank_values=True))
                if len(self._queries) < 4096:
                    self._queries[entry.query] = query
            for name, value in m.query.items():
                got = query.get(name)
                if got is None or (value != ANY and got != value):
                    count += 1
                    if count >= limit:
                        return count
        for wanted, value in self.headers:  # ASGI header names are lower-case
            found = [v for n, v in entry.request_headers if n == wanted]
            if not found or (value != ANY and b", ".join(found).decode("latin-1") != value):
                count += 1
                if count >= limit:
                    return count
        if m.body is not MISSING:
            count += _body_count(_entry_body(entry), m.body, limit - count)
        return count


def _body_count(actual: Any, expected: Any, limit: int) -> int:
    """How many differences `_body_differences` finds, counting no further than `limit`."""
    if actual is MISSING:
        return 1
    if isinstance(expected, dict) and isinstance(actual, dict):
        count = 0
        for name, value in expected.items():
            count += 1 if name not in actual else _body_count(actual[name], value, limit - count)
            if count >= limit:
                break
        return count
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        count = 0
        for a, e in zip(actual, expected, strict=True):
            count += _body_count(a, e, limit - count)
            if count >= limit:
                break
        return count
    return 0 if contains(actual, expected) else 1


def _window(entries: Sequence[Entry], since: int) -> Iterable[Entry]:
    """The entries after seq `since` (seqs are consecutive, so they are a tail)."""
    if not since or not entries:
        return entries
    start = since - entries[0].seq + 1
    if start <= 0:
        return entries
    return islice(entries, start, None)


def _count_matches(m: Matcher, plan: _Plan, entries: Iterable[Entry]) -> int:
    """How many entries have no difference (each stops at its first)."""
    methods, statuses, pattern, key = m.methods, m.statuses, m.path, m.key
    costly = bool(m.query or m.headers or m.body is not MISSING)
    needs_body = m.body is not MISSING
    needs_query = bool(m.query)
    paths = plan._paths
    matched = 0
    for entry in entries:
        if (needs_body and not entry.request_size) or (needs_query and not entry.query):
            continue
        if methods is not None and entry.method not in methods:
            continue
        if statuses is not None and entry.status not in statuses:
            continue
        if pattern is not None:
            hit = paths.get(entry.path)
            if not (plan.path_ok(entry.path) if hit is None else hit):
                continue
        if key is not None and not plan.key_ok(entry):
            continue
        if costly and plan.costly(entry, 1):
            continue
        matched += 1
    return matched


def _closest(m: Matcher, plan: _Plan, entries: Sequence[Entry]) -> list[Entry]:
    """The (at most NEAR_MISSES) non-matching entries after `since_seq` with the fewest
    differences, the closest first, newest first among equals. Walked newest first, so once
    three are found only a strictly closer entry can take a place, and no entry is looked at
    further than it takes to know it cannot."""
    costly = bool(m.query or m.headers or m.body is not MISSING)
    heap: list[tuple[int, int, Entry]] = []  # (-differences, seq): the root is the farthest
    worst = 1 << 30  # an entry needs fewer differences than this to take a place
    methods, statuses, pattern, key = m.methods, m.statuses, m.path, m.key
    paths = plan._paths
    since = m.since_seq
    for entry in reversed(entries):
        if entry.seq <= since:
            break
        count = 0
        if methods is not None and entry.method not in methods:
            count = 1
        if statuses is not None and entry.status not in statuses:
            count += 1
        if pattern is not None:
            hit = paths.get(entry.path)
            if not (plan.path_ok(entry.path) if hit is None else hit):
                count += 1
        if key is not None and not plan.key_ok(entry):
            count += 1
        if count >= worst:
            continue
        if costly:
            count += plan.costly(entry, worst - count)
        if count == 0 or count >= worst:
            continue
        if len(heap) < NEAR_MISSES:
            heapq.heappush(heap, (-count, entry.seq, entry))
        else:
            heapq.heapreplace(heap, (-count, entry.seq, entry))
        if len(heap) == NEAR_MISSES:
            worst = -heap[0][0]
            if worst == 1:
                break  # three misses by one field: none can be closer
    return [entry for _, _, entry in sorted(heap, key=lambda item: (-item[0], -item[1]))]


def verify(m: Matcher, entries: Sequence[Entry]) -> dict[str, Any]:
    """`{"ok", "matched", "near_misses"}` of the matcher over the journal's entries (oldest
    first): the matches are counted first, each entry dropped at its first difference; only
    when the count fails are the closest misses looked for, and their differences listed."""
    if m.account is not None:
        entries = [entry for entry in entries if entry.account == m.account]
    plan = _Plan(m)
    matched = _count_matches(m, plan, _window(entries, m.since_seq))
    ok = m.admits(matched)
    misses = [] if ok else _closest(m, plan, entries)
    return {
        "ok": ok,
        "matched": matched,
        "near_misses": [
            {
                "seq": entry.seq,
                "method": entry.method,
                "path": entry.path,
                "status": entry.status,
                "differences": _cheap(m, entry) + _costly(m, entry),
            }
            for entry in misses
        ],
    }
