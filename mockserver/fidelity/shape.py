"""Two answers to the same request, compared as a client would depend on them.

Compared: the status; the presence of the documented headers (and the media type); the JSON
shape of the body (the field names at every depth and each value's JSON type); the values of
documented enums (every property the OpenAPI document gives an `enum` or a `const`); the
prefix of ids; the form of timestamps; and the error envelope's `type`, `param` and `code`.
Values that differ by nature (ids, timestamps, hashes, secrets, request ids, titles) are
compared by form only. Items of a list are compared as one merged shape, so two lists of
different lengths or orders compare by what their items are made of.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

DOCUMENTED_HEADERS: Final = (
    "content-type",
    "x-request-id",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "location",
    "idempotent-replayed",
    "deprecation",
    "sunset",
)
ERROR_VALUES: Final = ("type", "param", "code")  # members of `error` compared by value
ABSENT: Final = "(absent)"

_ID: Final = re.compile(r"([a-z]+_)[A-Za-z0-9_]{4,}\Z")
_TIMESTAMP: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)\Z")
_HEX: Final = re.compile(r"[0-9a-f]{32,}\Z")


@dataclass(frozen=True, slots=True)
class Difference:
    """Where two answers differ (`status`, `headers.NAME` or a JSON path like `$.data[].id`),
    and what each side has there."""

    path: str
    upstream: str
    mock: str


class Comparer:
    """Compares answers; `enums` are the property names whose values are compared as such."""

    def __init__(self, enums: Iterable[str]) -> None:
        self.enums = frozenset(enums)

    def compare(
        self,
        upstream: tuple[int, dict[str, str], Any],
        mock: tuple[int, dict[str, str], Any],
    ) -> list[Difference]:
        """Each side as (status, headers with lowercase names, body: JSON value or text)."""
        differences: list[Difference] = []
        if upstream[0] != mock[0]:
            differences.append(Difference("status", str(upstream[0]), str(mock[0])))
        for name in DOCUMENTED_HEADERS:
            left, right = _header(upstream[1], name), _header(mock[1], name)
            if left != right:
                differences.append(Difference(f"headers.{name}", left, right))
        left_shape, right_shape = self.shape(upstream[2]), self.shape(mock[2])
        for path in sorted(left_shape.keys() | right_shape.keys(), key=_path_order):
            left = _describe(left_shape.get(path))
            right = _describe(right_shape.get(path))
            if left != right and _reported(path, left_shape, right_shape):
                differences.append(Difference(path, left, right))
        return differences

    def shape(self, body: Any) -> dict[str, set[str]]:
        """Every JSON path of `body` with the forms found there (list items merged)."""
        found: dict[str, set[str]] = {}
        self._walk(body, "$", "", found)
        return found

    def _walk(self, value: Any, path: str, name: str, found: dict[str, set[str]]) -> None:
        forms = found.setdefault(path, set())
        if isinstance(value, dict):
            forms.add("object")
            for key, item in value.items():
                self._walk(item, f"{path}.{key}", key, found)
        elif isinstance(value, list):
            forms.add("array")
            for item in value:
                self._walk(item, f"{path}[]", name, found)
        else:
            forms.add(self._form(value, path, name))

    def _form(self, value: Any, path: str, name: str) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "boolean"
        if isinstance(value, int | float):
            return "number"
        text = str(value)
        if name in self.enums or _is_error_value(path):
            return f"string {text!r}"
        if _TIMESTAMP.match(text):
            return "timestamp " + re.sub(r"\d", "d", text)
        if _HEX.match(text):
            return "hex string"
        found = _ID.match(text)
        if found:
            return f"id {found.group(1)}…"
        return "string"


def _is_error_value(path: str) -> bool:
    return any(path == f"$.error.{name}" for name in ERROR_VALUES)


def _header(headers: dict[str, str], name: str) -> str:
    value = headers.get(name)
    if value is None:
        return ABSENT
    if name == "content-type":
        return value.split(";")[0].strip().lower()
    return "present"


def _describe(forms: set[str] | None) -> str:
    if forms is None:
        return ABSENT
    return " or ".join(sorted(forms))


def _reported(path: str, left: dict[str, set[str]], right: dict[str, set[str]]) -> bool:
    """Whether a path whose forms differ is a difference of its own. A path one side lacks is
    one only where that side has an object for it to be in: a lacking parent, or a parent of
    another type, is reported at the parent; and an empty list says nothing of its items."""
    if path in left and path in right:
        return True
    lacking = right if path in left else left
    found = re.fullmatch(r"(.+?)(\.[^.\[\]]+|\[\])", path)
    if found is None:
        return True
    parent, step = found.groups()
    return step != "[]" and "object" in lacking.get(parent, set())


def _path_order(path: str) -> tuple[int, str]:
    return (path.count(".") + path.count("[]"), path)


def documented_enums(document: dict[str, Any]) -> set[str]:
    """The property names an OpenAPI document gives an `enum` or a `const`, at any depth."""
    names: set[str] = set()

    def walk(value: Any, name: str | None) -> None:
        if isinstance(value, dict):
            if name and ("enum" in value or "const" in value):
                names.add(name)
            for key, item in value.items():
                if key == "properties" and isinstance(item, dict):
                    for prop, schema in item.items():
                        walk(schema, prop)
                else:
                    walk(item, name if key in ("items", "oneOf", "anyOf", "allOf") else None)
        elif isinstance(value, list):
            for item in value:
                walk(item, name)

    walk(document, None)
    return names
