"""Request bodies and parameters, with the rules the handlers apply (`domain/validation.py`,
the domain modules, the seed's `Limits`).

Each schema accepts exactly what the handler accepts, as far as JSON Schema can say it. What
it cannot say is left to the server and written in the description: that a vault's region must
be the routed one, that a step condition must parse, that an export's dates must exist and be
in order, that a cursor must be one the server issued.
"""

from __future__ import annotations

from typing import Any

from mockserver.domain.conditions import MAX_LENGTH as CONDITION_MAX
from mockserver.domain.idempotency import MAX_KEY_LENGTH
from mockserver.domain.models import DECISIONS, DOCUMENT_STATUSES, REGIONS, Limits
from mockserver.domain.oauth import PKCE_VALUE
from mockserver.domain.validation import MAX_SAFE_INT
from mockserver.domain.webhook_rules import EVENT_TYPES, EVENTS_MAX
from mockserver.domain.workflows import COMMENT_MAX
from mockserver.openapi.fields import EMAIL_INPUT, Schema, enum, nullable, obj, string

ID_MAX = 255  # ids in bodies: the handlers take any string up to this, then look it up
BMP_ONLY = "^[\\u0000-\\uFFFF]*$"  # metadata keys stay in the Basic Multilingual Plane
WEBHOOK_EVENTS_ALL = "*"

# A real calendar date, YYYY-MM-DD, years 0001-9999 (what `date.fromisoformat` takes from the
# period's pattern): days 29 and 30 in every month but February, 31 in the long months, and
# February 29 in leap years only.
_YEAR = "(?:[1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"
_LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_MONTH_DAY = (
    "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
    "|(?:0[13-9]|1[0-2])-(?:29|30)"
    "|(?:0[13578]|1[02])-31)"
)
REAL_DATE = f"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"

# What the condition lexer takes, as a superset: characters of names, numbers, operators,
# brackets and commas, and quoted strings with the lexer's escapes (backslash before a quote,
# a backslash, n, t, or u and four hex digits outside the surrogates; no raw line breaks),
# with spaces, tabs and line breaks between. Any other character is refused (422); the
# grammar is the server's to check. Outside a string each character is its own token, so the
# pattern never backtracks far.
_BLANK = r"[ \t\r\n]"
_ESCAPE = (
    r"\\(?:["
    + "\"'"
    + r"\\nt]|u(?:[0-9A-Ca-c][0-9A-Fa-f]{3}|[Dd][0-7][0-9A-Fa-f]{2}|[EFef][0-9A-Fa-f]{3}))"
)
_CONDITION_TOKEN = (
    r"(?:[A-Za-z0-9_.=!<>()\[\],-]"
    rf'|"(?:[^"\\\r\n]|{_ESCAPE})*"'
    rf"|'(?:[^'\\\r\n]|{_ESCAPE})*')"
)
CONDITION_PATTERN = f"^{_BLANK}*(?:{_CONDITION_TOKEN}{_BLANK}*)+$"


def _metadata(limits: Limits) -> Schema:
    value: Schema = {
        "oneOf": [
            {"type": "string", "maxLength": limits.metadata_value_len},
            {"type": "integer", "minimum": -MAX_SAFE_INT, "maximum": MAX_SAFE_INT},
            {"type": "boolean"},
        ]
    }
    return nullable(
        {
            "type": "object",
            "maxProperties": limits.metadata_keys,
            "propertyNames": {
                "minLength": 1,
                "maxLength": limits.metadata_key_len,
                "pattern": BMP_ONLY,
            },
            "additionalProperties": value,
            "description": "Flat key/value pairs: strings, integers or booleans (no floats, "
            "no nesting).",
        }
    )


def body_schemas(limits: Limits) -> dict[str, Schema]:
    """components/schemas of the JSON request bodies."""
    step = obj(
        {
            "assignee": EMAIL_INPUT,
            "condition": nullable(
                {
                    **string(min_len=1, max_len=CONDITION_MAX),
                    "pattern": CONDITION_PATTERN,
                    "description": "An expression over the document, e.g. "
                    '`metadata.amount > 10000 and metadata.kind == "nda"`; a step whose '
                    "condition is false when it becomes current is skipped. The pattern "
                    "holds its characters; it must also parse by the grammar of the API "
                    "reference, Step conditions (422 `steps[N].condition` otherwise).",
                }
            ),
        },
        ["assignee"],
    )
    return {
        "VaultCreate": obj(
            {
                "name": string(min_len=1, max_len=limits.name_max, not_blank=True),
                "region": enum(
                    REGIONS, "Must be the region the request is routed to (422 otherwise)."
                ),
                "members": nullable(
                    {"type": "array", "maxItems": limits.members_max, "items": EMAIL_INPUT}
                ),
            },
            ["name", "region"],
        ),
        "DocumentCreate": obj(
            {
                "title": string(min_len=1, max_len=limits.title_max, not_blank=True),
                "vault_id": {
                    **string(min_len=1, max_len=ID_MAX, not_blank=True),
                    "description": "A vault of the routed region (404 `param: vault_id` else).",
                },
                "metadata": _metadata(limits),
            },
            ["title", "vault_id"],
        ),
        "WorkflowCreate": obj(
            {
                "document_id": {
                    **string(min_len=1, max_len=ID_MAX, not_blank=True),
                    "description": "A `draft` document without an in-progress workflow.",
                },
                "steps": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": limits.steps_max,
                    "items": step,
                },
            },
            ["document_id", "steps"],
        ),
        "WorkflowAdvance": obj(
            {
                "decision": enum(DECISIONS),
                "comment": nullable(
                    {**string(max_len=COMMENT_MAX), "description": "Kept on the audit trail."}
                ),
            },
            ["decision"],
        ),
        "ExportCreate": obj(
            {
                "period": {
                    "type": "string",
                    "pattern": f"^{REAL_DATE}/{REAL_DATE}$",
                    "description": "`YYYY-MM-DD/YYYY-MM-DD`, inclusive UTC days: real dates "
                    "(the pattern), the start not after the end (422 `period` otherwise).",
                    "examples": ["2026-01-01/2026-01-31"],
                },
                "format": nullable(enum(("csv",))),
            },
            ["period"],
        ),
        "WebhookEndpointCreate": obj(
            {
                "url": {
                    "type": "string",
                    "format": "uri",
                    "description": "An `https://` URL (`http://` is accepted for loopback "
                    "hosts unless the mock runs with --strict-webhook-urls).",
                },
                "events": {
                    "anyOf": [
                        {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": EVENTS_MAX,
                            "items": enum(EVENT_TYPES),
                        },
                        {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 1,
                            "items": {"const": WEBHOOK_EVENTS_ALL},
                        },
                    ],
                    "description": 'Event types to receive, or `["*"]` (alone) for all.',
                },
            },
            ["url", "events"],
        ),
    }


def token_form() -> Schema:
    """The form of `POST /v1/oauth/token` (RFC 6749 section 4.1.3)."""
    text = string(min_len=1)
    return obj(
        {
            "grant_type": enum(("authorization_code",)),
            "code": {**text, "description": "The code from the authorize redirect."},
            "redirect_uri": {
                **text,
                "description": "Required when the authorization request had one.",
            },
            "client_id": {**text, "description": "With client_secret, instead of HTTP Basic."},
            "client_secret": text,
            "code_verifier": {
                "type": "string",
                "pattern": "^" + PKCE_VALUE.pattern.removesuffix("\\Z") + "$",
                "description": "PKCE verifier, when the authorization request had a challenge.",
            },
        },
        ["grant_type", "code"],
    )


def query(name: str, schema: Schema, description: str, *, required: bool = False) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "schema": schema,
        "description": description,
    }


def path_param(name: str, schema: Schema) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema}


def parameter_components() -> dict[str, Any]:
    """components/parameters shared by several operations."""
    return {
        "limit": query(
            "limit",
            {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
            "Page size.",
        ),
        "cursor": query(
            "cursor",
            {"type": "string", "pattern": "^cur_[A-Za-z0-9_-]{24}$"},
            "The `next_cursor` of the previous page (a cursor the server did not issue is 422).",
        ),
        "Idempotency-Key": {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            # printable ASCII (what the mock accepts), no edge spaces (HTTP strips them)
            "schema": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_KEY_LENGTH,
                "pattern": "^[!-~]([ -~]*[!-~])?$",
            },
            "description": "Run the operation at most once: a retry with the same key and "
            "payload gets the original response (with `Idempotent-Replayed: true`); the same "
            "key with another payload is 409. Kept 24 hours.",
        },
    }


DOCUMENT_FILTERS = [
    query("vault_id", {"type": "string"}, "Only documents of this vault (404 if unknown)."),
    query("status", enum(DOCUMENT_STATUSES), "Only documents in this status."),
]
TIME_BOUND: Schema = {
    "type": "string",
    "anyOf": [{"format": "date-time"}, {"format": "date"}],
}
AUDIT_FILTERS = [
    query(
        "resource_id",
        {"type": "string"},
        "A document (with its workflows) or a vault (with everything in it).",
    ),
    query("since", TIME_BOUND, "Inclusive lower bound: an RFC 3339 timestamp or a date."),
    query("until", TIME_BOUND, "Inclusive upper bound: an RFC 3339 timestamp or a date."),
    query("actor", {"type": "string"}, "An email address, or `system`."),
    query("type", {"type": "string"}, "An event type, e.g. `document.locked`."),
]
