"""Primitive JSON Schemas (2020-12, as OpenAPI 3.1 uses): ids, timestamps, emails, and the
request fields whose rules come from the same constants and `Limits` the handlers check.

A request schema here must accept exactly what the mock accepts: schemathesis sends values the
schema calls valid and expects them taken, and values it calls invalid and expects them refused.
So optional fields the mock reads `null` as "absent" for are nullable, "not only whitespace" is
the handlers' own character class, and patterns are anchored the way their `fullmatch` is.
"""

from __future__ import annotations

from typing import Any

from mockserver.domain.validation import (
    EMAIL_MAX,
    EMAIL_PATTERN,
    MAX_SAFE_INT,
    NOT_BLANK_PATTERN,
)

Schema = dict[str, Any]

ID_TAIL = "[A-Za-z0-9_]+"  # generated ids are base62, seeded ones may hold underscores
HEX64 = "^[0-9a-f]{64}$"
TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
NOT_BLANK = NOT_BLANK_PATTERN  # somewhere a character that is not (Unicode) whitespace


def ref(name: str) -> Schema:
    """A reference to a schema under components/schemas."""
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: Schema) -> Schema:
    """`schema` or null, as JSON Schema 2020-12 writes it (`type: [x, "null"]`)."""
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    out = dict(schema)
    kind = out["type"]
    out["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def obj(properties: dict[str, Schema], required: list[str] | None = None, **extra: Any) -> Schema:
    """An object; unknown properties stay allowed (the API may add fields within v1)."""
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


def prefixed_id(prefix: str, what: str) -> Schema:
    return {
        "type": "string",
        "pattern": f"^{prefix}{ID_TAIL}$",
        "description": f"{what} id, prefix `{prefix}`.",
    }


def string(*, min_len: int = 0, max_len: int | None = None, not_blank: bool = False) -> Schema:
    """A string of `min_len..max_len` characters; `not_blank` refuses whitespace-only ones."""
    schema: Schema = {"type": "string"}
    if min_len:
        schema["minLength"] = min_len
    if max_len is not None:
        schema["maxLength"] = max_len
    if not_blank:
        schema["pattern"] = NOT_BLANK
    return schema


def enum(values: tuple[str, ...] | list[str], description: str | None = None) -> Schema:
    schema: Schema = {"type": "string", "enum": list(values)}
    if description:
        schema["description"] = description
    return schema


TIMESTAMP: Schema = {
    "type": "string",
    "format": "date-time",
    "pattern": TIMESTAMP_PATTERN,
    "description": "RFC 3339, UTC, whole seconds.",
    "examples": ["2026-01-15T09:00:00Z"],
}

# Addresses the mock takes in requests: the pattern the handlers match the whole value with.
EMAIL_INPUT: Schema = {
    "type": "string",
    "maxLength": EMAIL_MAX,
    "pattern": f"^{EMAIL_PATTERN}$",
    "examples": ["ana@example.com"],
}

# Addresses the mock shows: request ones, and seeded ones (which the seed checks more loosely).
EMAIL_OUTPUT: Schema = {"type": "string", "pattern": r"^[^@\s]+@[^@\s]+$"}

SHA256: Schema = {"type": "string", "pattern": HEX64, "description": "Lowercase hex SHA-256."}

METADATA_VALUE: Schema = {
    "oneOf": [
        {"type": "string"},
        {"type": "integer", "minimum": -MAX_SAFE_INT, "maximum": MAX_SAFE_INT},
        {"type": "boolean"},
    ]
}
