"""Matchers for rules and deprecations: path patterns, exact-or-present maps, body subsets.

Pure functions over plain values, so the engine and its tests need no HTTP. Paths are matched
without a regional prefix (`/us/v1/documents` is matched as `/v1/documents`), because one rule
should hold on every host, as the API's routes do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

ANY = "*"  # a header or query value that only has to be present
_PARAM = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


class PatternError(ValueError):
    """A path pattern that cannot be compiled."""


class PathPattern:
    """`/v1/documents/{id}`: `{name}` and `*` match within one segment, `**` any number."""

    __slots__ = ("_regex", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        parts = []
        for segment in text.split("/"):
            if segment == "**":
                parts.append(".*")
                continue
            if "{" in segment or "}" in segment:
                if not _PARAM.fullmatch(segment):
                    raise PatternError(
                        f"bad path segment '{segment}': a parameter is a whole segment like "
                        "'{id}'"
                    )
                parts.append("[^/]+")
                continue
            parts.append("[^/]*".join(re.escape(piece) for piece in segment.split("*")))
        self._regex = re.compile("/".join(parts).replace("/.*/", "(?:/.*)?/"))

    def matches(self, path: str) -> bool:
        return self._regex.fullmatch(path) is not None

    def __repr__(self) -> str:
        return f"PathPattern({self.text!r})"


def map_matches(expected: Mapping[str, str], actual: Mapping[str, str]) -> bool:
    """Every expected entry is in `actual`: equal, or merely present when expected is `*`."""
    for name, value in expected.items():
        got = actual.get(name)
        if got is None or (value != ANY and got != value):
            return False
    return True


def contains(actual: Any, expected: Any) -> bool:
    """`expected` is a subset of `actual`: mappings may have more keys, at any depth; lists
    must have the same length with each item a subset; scalars are equal and of the same
    JSON type (so `1` does not match `true`)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and contains(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(contains(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def first_difference(actual: Any, expected: Any, where: str = "body") -> str | None:
    """Where `contains(actual, expected)` fails, in words; None when it holds."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where} is {_show(actual)}, expected an object"
        for key, value in expected.items():
            if key not in actual:
                return f"{where}.{key} is missing"
            problem = first_difference(actual[key], value, f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where} is {_show(actual)}, expected {_show(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            problem = first_difference(a, e, f"{where}[{index}]")
            if problem:
                return problem
        return None
    if contains(actual, expected):
        return None
    return f"{where} is {_show(actual)}, expected {_show(expected)}"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
