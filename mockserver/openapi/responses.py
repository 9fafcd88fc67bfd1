"""Responses: the error envelope (docs/reference/errors-and-limits.md), the headers every
response carries, and the response sets operations are built from.

Error schemas are made from the `ApiError` classes themselves (status and type are class
variables there), one schema per `type` with that type as a constant, so a 404 that says
`conflict` fails the schema. Every response carries `X-Request-Id`; every response of an
operation that takes a credential carries the rate-limit headers (docs/reference/api.md, Rate
limits), and a 429 also `Retry-After`. Operations without a credential (OAuth, the
document itself, pre-signed downloads) list only what they send.
"""

from __future__ import annotations

from typing import Any

from mockserver.core.errors import (
    ApiError,
    AuthenticationError,
    BadRequest,
    Conflict,
    InternalError,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    RateLimited,
    ValidationError,
)
from mockserver.openapi.fields import Schema, obj, ref
from mockserver.openapi.object_schemas import REQUEST_ID, const

ERRORS: tuple[type[ApiError], ...] = (
    BadRequest,
    AuthenticationError,
    PermissionDenied,
    NotFound,
    Conflict,
    PayloadTooLarge,
    ValidationError,
    RateLimited,
    InternalError,
)
BY_STATUS = {cls.status: cls for cls in ERRORS}

# The RFC 6749 codes the token and authorize endpoints put in `error.code`.
OAUTH_CODES = (
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
)

WHEN = {
    400: "Malformed request: missing body, invalid JSON, a body that is not a JSON object, or "
    "a Content-Type other than JSON.",
    401: "Missing, malformed, unknown, expired or revoked credential.",
    403: "The credential lacks the scope the operation needs; the message names it.",
    404: "No such resource in the routed region (or account, or environment); `param` is set "
    "when the id came from the body or query. Also: a host and a path naming different regions.",
    409: "State conflict, or an `Idempotency-Key` reused with another payload or while its first "
    "request still runs.",
    413: "Request body over 1 MiB (type `bad_request`).",
    422: "A field failed validation; `param` names it (`steps[1].assignee` for nested fields).",
    429: "Rate limit exceeded; retry after `Retry-After` seconds.",
    500: "Failure on the service side; idempotent calls are safe to retry.",
}

Headers = dict[str, Any]


def header(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def header_components() -> dict[str, Any]:
    """components/headers: response headers by name."""
    integer = {"type": "integer", "minimum": 0}
    return {
        "X-Request-Id": {
            "description": "The request's id, `req_...`; the same as an error's `request_id`.",
            "required": True,
            "schema": REQUEST_ID,
        },
        "X-RateLimit-Limit": {
            "description": "Sustained requests per minute of the key (whoami's `rate_limit`).",
            "required": True,
            "schema": integer,
        },
        "X-RateLimit-Remaining": {
            "description": "Requests left in the sliding one-minute window: max(0, burst - used).",
            "required": True,
            "schema": integer,
        },
        "X-RateLimit-Reset": {
            "description": "Unix time (seconds) at which the oldest counted request leaves the "
            "window.",
            "required": True,
            "schema": integer,
        },
        "Retry-After": {
            "description": "Whole seconds to wait before retrying.",
            "required": True,
            "schema": integer,
        },
        "Idempotent-Replayed": {
            "description": "`true` when this is the stored response of an earlier request with "
            "the same `Idempotency-Key` and payload.",
            "schema": {"type": "string", "enum": ["true"]},
        },
        "Sunset": {
            "description": "On a deprecated endpoint: the HTTP-date after which it may go away "
            "(RFC 8594).",
            "schema": {"type": "string"},
        },
        "Deprecation": {
            "description": "On a deprecated endpoint: `@<unix seconds>` since when (RFC 9745).",
            "schema": {"type": "string"},
        },
    }


RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def common_headers(status: int, *, credentialed: bool) -> Headers:
    """The headers of any response of an operation (a credentialed one or not)."""
    names = ["X-Request-Id"]
    if credentialed:
        names += [*RATE_HEADERS, "Sunset", "Deprecation"]
        if status == 429:
            names.append("Retry-After")
    return {name: header(name) for name in names}


def error_schema(error_type: str, *, oauth: bool = False) -> Schema:
    """The envelope `{"error": {type, message, param?, code?, request_id}}` of one type."""
    code: Schema = {"type": "string", "description": "The RFC 6749 error code (OAuth only)."}
    if oauth:
        code = {**code, "enum": list(OAUTH_CODES)}
    inner = obj(
        {
            "type": const(error_type),
            "message": {"type": "string", "minLength": 1},
            "param": {"type": "string", "description": "The offending field, when there is one."},
            "code": code,
            "request_id": REQUEST_ID,
        },
        ["type", "message", "code", "request_id"] if oauth else ["type", "message", "request_id"],
    )
    return obj({"error": inner}, ["error"])


def schema_name(error_type: str, *, oauth: bool = False) -> str:
    base = "".join(part.title() for part in error_type.split("_"))
    return f"OAuth{base}" if oauth else base


def error_schemas() -> dict[str, Schema]:
    """components/schemas of the error envelopes: one per type, and the OAuth ones."""
    types = dict.fromkeys(cls.type for cls in ERRORS)
    schemas = {schema_name(t): error_schema(t) for t in types}
    for t in (BadRequest.type, AuthenticationError.type):
        schemas[schema_name(t, oauth=True)] = error_schema(t, oauth=True)
    return schemas


def json_content(schema: Schema) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def error_response(
    status: int, *, credentialed: bool, oauth: bool = False, extra: Headers | None = None
) -> dict[str, Any]:
    cls = BY_STATUS[status]
    return {
        "description": f"`{cls.type}`. {WHEN[status]}",
        "headers": {**common_headers(status, credentialed=credentialed), **(extra or {})},
        "content": json_content(ref(schema_name(cls.type, oauth=oauth))),
    }


def response_components() -> dict[str, Any]:
    """components/responses: the error responses of credentialed operations, by status."""
    return {f"Error{status}": error_response(status, credentialed=True) for status in BY_STATUS}


def errors(*statuses: int) -> dict[str, Any]:
    """References to the error responses of a credentialed operation."""
    return {str(s): {"$ref": f"#/components/responses/Error{s}"} for s in statuses}


def success(
    status: int,
    description: str,
    schema: Schema | None,
    *,
    credentialed: bool = True,
    headers: Headers | None = None,
    media_type: str = "application/json",
    links: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A success response: its body (if any), the common headers and any `extra` ones."""
    response: dict[str, Any] = {
        "description": description,
        "headers": {**common_headers(status, credentialed=credentialed), **(headers or {})},
    }
    if schema is not None:
        response["content"] = {media_type: {"schema": schema}}
    if links:
        response["links"] = links
    return response
