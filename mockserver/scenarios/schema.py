"""The JSON Schema (draft 2020-12) of scenario files, as `mockserver schema scenario` prints it.

It is the single description of the format: the loader validates every file against it before
its own checks (the ones a schema cannot say, like "sunset not before deprecation"), and editors
use it to validate and autocomplete. `x-error` on a node replaces jsonschema's message for it.
"""

from __future__ import annotations

from typing import Any

SCHEMA_ID = "urn:mockserver:schema:scenario:v1"

_NAME = {
    "type": "string",
    "pattern": "^[a-z0-9][a-z0-9_-]{0,63}$",
    "x-error": "must be 1-64 lowercase letters, digits, '_' or '-', not starting with '_' or '-'",
}
_TIMESTAMP = {
    "type": "string",
    "format": "date-time",
    "description": "RFC 3339, e.g. 2026-01-15T09:00:00Z (UTC when no offset is given)",
}
_KEY = {"type": "string", "minLength": 1, "description": "an API key or OAuth access token"}
_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_METHOD = {
    "type": "string",
    "enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
}
_PATH = {
    "type": "string",
    "pattern": "^/",
    "x-error": "must be a path starting with '/'",
}
_STATUS = {"type": "integer", "minimum": 100, "maximum": 599}


def _id(prefix: str) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": f"^{prefix}_[A-Za-z0-9_]{{1,100}}$",
        "x-error": f"must be an id like {prefix}_qa_1 ('{prefix}_' and letters, digits or '_')",
    }


def _obj(required: list[str], properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A mapping with these fields and no others (so typos are errors, not silence)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


_ACTION = _obj(
    [],
    {
        "legal_hold": _obj(
            ["document"],
            {"document": {"type": "string", "minLength": 1}, "hold": {"type": "boolean"}},
            description="place (or with hold: false release) a legal hold",
        ),
        "revoke_key": _obj(["key"], {"key": _KEY}, description="revoke an API key (then 401)"),
        "add_vault": _obj(
            ["name", "region"],
            {
                "id": _id("vault"),
                "key": _KEY,
                "name": {"type": "string"},
                "region": {"enum": ["us", "eu"]},
                "members": {"type": "array", "items": {"type": "string"}},
            },
        ),
        "add_document": _obj(
            ["vault_id", "title"],
            {
                "id": _id("doc"),
                "key": _KEY,
                "vault_id": {"type": "string", "minLength": 1},
                "title": {"type": "string"},
                "metadata": {"type": "object"},
                "legal_hold": {"type": "boolean"},
            },
        ),
        "add_workflow": _obj(
            ["document_id", "steps"],
            {
                "id": _id("wf"),
                "key": _KEY,
                "document_id": {"type": "string", "minLength": 1},
                "steps": {
                    "type": "array",
                    "minItems": 1,
                    "items": _obj(
                        ["assignee"],
                        {"assignee": {"type": "string"}, "condition": {"type": "string"}},
                    ),
                },
            },
        ),
        "advance_workflow": _obj(
            ["workflow", "decision"],
            {
                "key": _KEY,
                "workflow": {"type": "string", "minLength": 1},
                "decision": {"enum": ["approve", "reject"]},
                "comment": {"type": "string"},
            },
        ),
        "add_webhook_endpoint": _obj(
            ["url", "events"],
            {
                "id": _id("whk"),
                "key": _KEY,
                "url": {"type": "string", "minLength": 1},
                "events": {"type": "array", "minItems": 1, "items": {"type": "string"}},
            },
        ),
        "enable": {**_NAME, "description": "timeline only: turn on a rule, fault or deprecation"},
        "disable": {**_NAME, "description": "timeline only: turn off a rule, fault or deprecation"},
    },
    minProperties=1,
    maxProperties=1,
    description="one action: its only field names what it does",
    **{"x-error": "an action has exactly one field, the action's name (e.g. legal_hold:)"},
)

_MATCH = _obj(
    [],
    {
        "method": {
            "oneOf": [_METHOD, {"type": "array", "minItems": 1, "items": _METHOD}],
            "x-error": "must be an HTTP method (GET, POST, ...) or a list of them",
        },
        "path": {
            **_PATH,
            "description": "/v1/documents/{id}: {name} or * match one segment, ** any number",
        },
        "key": {
            "oneOf": [_KEY, {"type": "array", "minItems": 1, "items": _KEY}],
            "x-error": "must be a key or a list of keys",
        },
        "headers": {**_STRINGS, "description": "header values, exact; '*' means present"},
        "query": {**_STRINGS, "description": "query parameters, exact; '*' means present"},
        "body": {"description": "a subset the JSON request body must contain"},
        "nth": {"type": "integer", "minimum": 1, "description": "fire from the nth match on"},
        "times": {"type": "integer", "minimum": 1, "description": "fire this many times"},
    },
)

_RESPOND = _obj(
    [],
    {
        "status": _STATUS,
        "error": _obj(
            ["message"],
            {
                "type": {"type": "string", "minLength": 1},
                "message": {"type": "string", "minLength": 1},
                "param": {"type": "string", "minLength": 1},
            },
        ),
        "headers": _STRINGS,
        "body": {"description": "any JSON value, sent as the response body"},
        "delay_ms": {"type": "integer", "minimum": 0, "maximum": 30000},
        "fault": {
            "enum": ["reset", "truncate", "drop_after_commit", "slow_body", "stall"],
            "description": "break the transport instead of answering cleanly",
        },
        "bytes_per_second": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100_000_000,
            "description": "slow_body: the rate the body is sent at",
        },
        "stall_ms": {
            "type": "integer",
            "minimum": 1,
            "maximum": 30000,
            "description": "stall: how long no answer comes before the connection is reset",
        },
        "rate_limit_burst": _obj(
            ["seconds"],
            {"seconds": {"type": "integer", "minimum": 1, "maximum": 86400}},
            description="answer 429 with consistent rate-limit headers for this long",
        ),
    },
    minProperties=1,
    **{"x-error": "respond needs at least one of status, body, error, delay_ms, fault, ..."},
)

_RULE = _obj(
    ["name", "respond"],
    {
        "name": _NAME,
        "enabled": {"type": "boolean"},
        "match": _MATCH,
        "respond": _RESPOND,
    },
)

_WEBHOOK_FAULT = _obj(
    ["name", "fault"],
    {
        "name": _NAME,
        "enabled": {"type": "boolean"},
        "endpoint": _id("whk"),
        "event": {"type": "string", "minLength": 1, "description": "event type; * matches any"},
        "attempts": {
            "oneOf": [
                {"type": "integer", "minimum": 1, "description": "the first N attempts"},
                {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1}},
            ],
            "x-error": "must be a number of attempts (the first N) or a list of attempt numbers",
        },
        "fault": {"enum": ["fail", "timeout", "duplicate", "delay"]},
        "status": _STATUS,
        "delay_seconds": {"type": "integer", "minimum": 1, "maximum": 86400},
    },
)


def _refused(message: str) -> dict[str, Any]:
    """A field a place does not take, refused with `message` (rather than "unknown field")."""
    return {"not": {}, "x-error": message}


_PROBABILITY = {
    "type": "number",
    "exclusiveMinimum": 0,
    "maximum": 1,
    "description": "the share of matching requests hit, more than 0 and at most 1",
}
_CHAOS_MATCH = _obj(
    [],
    {
        **_MATCH["properties"],
        "nth": _refused("chaos draws by probability: nth does not apply"),
        "times": _refused("chaos draws by probability: times does not apply"),
    },
)
_CHAOS_RESPOND = {
    **_RESPOND,
    "properties": {
        **_RESPOND["properties"],
        "rate_limit_burst": _refused("a chaos rule cannot start a rate_limit_burst: use a rule"),
    },
}
_MS = {"type": "number", "minimum": 0, "maximum": 30000}

_CHAOS = _obj(
    ["seed"],
    {
        "seed": {
            "type": "integer",
            "minimum": 0,
            "maximum": 2**63 - 1,
            "description": "the seed of every draw: the same seed and requests give the same hits",
        },
        "rules": {
            "type": "array",
            "items": _obj(
                ["probability"],
                {
                    "name": _NAME,
                    "match": _CHAOS_MATCH,
                    "probability": _PROBABILITY,
                    "respond": _CHAOS_RESPOND,
                    "fault": {
                        **_RESPOND["properties"]["fault"],
                        "description": "short for respond: {fault: ...}",
                    },
                    "bytes_per_second": _RESPOND["properties"]["bytes_per_second"],
                    "stall_ms": _RESPOND["properties"]["stall_ms"],
                },
                description="answer a share of the matching requests with respond (or fault)",
            ),
        },
        "latency": _obj(
            ["distribution", "median_ms"],
            {
                "match": _CHAOS_MATCH,
                "distribution": {"enum": ["fixed", "uniform", "lognormal"]},
                "median_ms": _MS,
                "p99_ms": {**_MS, "description": "uniform and lognormal: the 99th percentile"},
            },
            description="delay matching requests by a seeded draw (milliseconds, at most 30000)",
        ),
        "webhooks": {
            "type": "array",
            "items": _obj(
                ["probability", "fault"],
                {
                    "name": _NAME,
                    "endpoint": _id("whk"),
                    "event": {
                        "type": "string",
                        "minLength": 1,
                        "description": "event type; * matches any",
                    },
                    "probability": _PROBABILITY,
                    "fault": {"enum": ["fail", "timeout", "delay"]},
                    "status": _STATUS,
                    "delay_seconds": {"type": "integer", "minimum": 1, "maximum": 86400},
                },
                description="make a share of the matching delivery attempts fail or be slow",
            ),
        },
    },
    description="seeded faults: a share of requests and webhook deliveries, and latency",
)

_DEPRECATION = _obj(
    ["path", "deprecation", "sunset"],
    {
        "name": _NAME,
        "enabled": {"type": "boolean"},
        "method": _METHOD,
        "path": _PATH,
        "deprecation": _TIMESTAMP,
        "sunset": _TIMESTAMP,
        "link": {"type": "string", "minLength": 1},
    },
)

_TIMELINE = _obj(
    ["do"],
    {
        "after": {"type": "integer", "minimum": 0, "description": "seconds after loading"},
        "at": _TIMESTAMP,
        "do": {"type": "array", "minItems": 1, "items": _ACTION},
    },
)

_REQUEST = _obj(
    ["method", "path"],
    {
        "method": _METHOD,
        "path": {
            "type": "string",
            "pattern": "^(/|https?://|\\$\\{)",
            "x-error": "must be a path starting with '/', a URL, or a captured ${variable}",
        },
        "key": {"type": ["string", "null"], "description": "null sends no Authorization"},
        "headers": _STRINGS,
        "query": _STRINGS,
        "body": {"description": "JSON body"},
        "form": {
            **_STRINGS,
            "description": "form fields, sent as application/x-www-form-urlencoded",
        },
        "content": {
            "type": "string",
            "description": "a raw body, sent as it is (say its Content-Type in headers)",
        },
    },
)

_STEP = _obj(
    [],
    {
        "name": {"type": "string"},
        "request": _REQUEST,
        "expect": _obj(
            [],
            {
                "status": _STATUS,
                "headers": {
                    "type": "object",
                    "additionalProperties": {"type": ["string", "null"]},
                    "description": "exact values; '*' means present, null means absent",
                },
                "body": {"description": "a subset"},
                "transport_error": {
                    "type": "boolean",
                    "description": "true: the connection breaks instead of answering (a "
                    "transport fault); false: it answers",
                },
            },
        ),
        "capture": {
            "type": "object",
            "additionalProperties": {
                "type": "string",
                "pattern": r"^(status|body(\.[^.]+)*|headers\.[A-Za-z0-9-]+)$",
                "x-error": "must be 'status', 'body', 'body.<field>...' or 'headers.<name>'",
            },
        },
        "repeat": _obj(
            ["until_status", "at_most"],
            {
                "until_status": _STATUS,
                "at_most": {"type": "integer", "minimum": 1, "maximum": 10000},
            },
            description="send the request again until it answers until_status, at most "
            "at_most times; expect and capture apply to the last answer",
        ),
        "advance": {"type": "integer", "minimum": 0, "maximum": 315360000},
        "set_clock": _TIMESTAMP,
        "wait_for_deliveries": _obj(
            ["count"],
            {
                "endpoint": {"type": "string"},
                "event": {"type": "string"},
                "status": {"enum": ["pending", "succeeded", "failed", "cancelled", "dropped"]},
                "count": {"type": "integer", "minimum": 1},
                "within": {"type": "integer", "minimum": 0, "maximum": 172800},
            },
        ),
    },
    minProperties=1,
    **{"x-error": "a step needs one of request, advance, set_clock, wait_for_deliveries"},
)

SCENARIO_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "mockserver scenario",
    "description": "Puts the mock into a situation and scripts checks against it.",
    **_obj(
        ["name"],
        {
            "version": {"const": 1},
            "name": _NAME,
            "description": {"type": "string"},
            "key": {**_KEY, "description": "default key of setup and steps"},
            "clock": _obj(
                [],
                {
                    "freeze": {"type": "boolean"},
                    "set": _TIMESTAMP,
                    "advance": {"type": "integer", "minimum": 0, "maximum": 315360000},
                },
            ),
            "setup": {"type": "array", "items": _ACTION},
            "rules": {"type": "array", "items": _RULE},
            "webhooks": {"type": "array", "items": _WEBHOOK_FAULT},
            "deprecations": {"type": "array", "items": _DEPRECATION},
            "timeline": {"type": "array", "items": _TIMELINE},
            "steps": {"type": "array", "items": _STEP},
            "chaos": _CHAOS,
        },
    ),
}
