"""What of a recorded answer a replay can expect: the stable fields, with ids as variables.

A replay runs on the mock, which assigns its own ids, times, hashes and request ids, writes
its own messages and holds its own lists; so an expectation keeps the fields that say what
happened (statuses, titles, versions, regions, error types and params, ...) and leaves out
the rest. An id the replay knows (one the setup recreates, one of the seed, or one a step
captured) is kept, as a literal or as its `${variable}`; any other id is left out.
"""

from __future__ import annotations

import re
from typing import Any, Final

# Fields whose values the mock makes its own way: never expected.
VOLATILE: Final = frozenset(
    {
        "sha256",
        "hash",
        "prev_hash",
        "seq",
        "request_id",
        "message",
        "signing_secret",
        "access_token",
        "download_url",
        "next_cursor",
        "has_more",
        "document_count",
        "expires_in",
        "rate_limit",
    }
)
# The prefixes of the ids the service assigns (the mock's own, and those of its tokens).
ID: Final = re.compile(r"(acct|doc|evt|exp|req|vault|wf|whd|whk|cur|oac|oat)_[A-Za-z0-9_]{4,}\Z")


class Names:
    """Literal values the replay refers to: known ids as they are, captured ones by name."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.variables: dict[str, str] = {}  # value -> variable name

    def substitute(self, value: Any) -> Any:
        """`value` (a request's path, query or body) with captured values as `${name}`."""
        if isinstance(value, str):
            for literal, name in sorted(self.variables.items(), key=lambda i: -len(i[0])):
                if literal in value:
                    value = value.replace(literal, f"${{{name}}}")
            return value
        if isinstance(value, dict):
            return {key: self.substitute(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.substitute(item) for item in value]
        return value

    def expected(self, body: Any) -> Any:
        """The subset of a recorded JSON body a replay can expect; None when nothing is."""
        if not isinstance(body, dict):
            return None
        kept = self._mapping(body)
        return kept or None

    def _mapping(self, body: dict[str, Any]) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for name, value in body.items():
            if name in VOLATILE or name.endswith("_at") or name == "url":
                continue
            item = self._value(value)
            if item is not _SKIP:
                kept[name] = item
        return kept

    def _value(self, value: Any) -> Any:
        if isinstance(value, dict):
            inner = self._mapping(value)
            return inner if inner or not value else _SKIP
        if isinstance(value, list):
            if all(isinstance(item, str | int | float | bool) for item in value):
                kept = [self._value(item) for item in value]
                return _SKIP if _SKIP in kept else kept
            return _SKIP  # lists of objects hold the upstream's own data
        if isinstance(value, str):
            if value in self.variables:
                return f"${{{self.variables[value]}}}"
            if "[redacted]" in value:
                return _SKIP
            if ID.match(value) and value not in self.known:
                return _SKIP
        return value


class _Skip:
    """Marks a value an expectation leaves out."""


_SKIP: Final = _Skip()
