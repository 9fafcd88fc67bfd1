"""The whole OpenAPI 3.1 document, and its one serialisation."""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.core.version import __version__
from mockserver.domain.models import SCOPES, Limits
from mockserver.openapi.object_schemas import resource_schemas
from mockserver.openapi.paths import paths
from mockserver.openapi.requests import body_schemas, parameter_components
from mockserver.openapi.responses import error_schemas, header_components, response_components
from mockserver.openapi.webhooks import webhook_schemas, webhooks

DESCRIPTION = """\
A stateful, deterministic mock of the Document, Vault, Workflow and Audit REST API (v1).

Send a credential as `Authorization: Bearer <key or token>`: an API key (`sk_test_...` reaches
the sandbox, `sk_live_...` production) or an OAuth 2.0 access token. GET needs the resource's
`:read` scope, POST and DELETE its `:write` scope (creating an audit export needs `audit:read`).
Errors are `{"error": {type, message, param?, request_id}}`. Every response carries
`X-Request-Id`, and every response to a credential the `X-RateLimit-*` headers. Lists with
cursors take `limit` (1..100, default 20) and `cursor`; follow `next_cursor` until it is null.
Clients ignore unknown fields: fields and endpoints may be added within /v1.
"""

SCOPE_HELP = {
    "documents": "documents",
    "vaults": "vaults",
    "workflows": "approval workflows",
    "audit": "the audit log and its exports",
    "webhooks": "webhook endpoints",
}


def _security_schemes() -> dict[str, Any]:
    scopes = {}
    for scope in SCOPES:
        resource, access = scope.split(":")
        scopes[scope] = f"{'Read' if access == 'read' else 'Change'} {SCOPE_HELP[resource]}."
    return {
        "apiKey": {
            "type": "http",
            "scheme": "bearer",
            "description": "A secret API key: `sk_test_...` (sandbox) or `sk_live_...` (live). "
            "Its scopes are listed by `GET /v1/whoami`.",
        },
        "oauth2": {
            "type": "oauth2",
            "description": "The authorization-code flow (PKCE S256 optional); the access token "
            "(`oat_...`) is sent as a bearer token and carries the user's permissions "
            "intersected with the requested scopes.",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "/v1/oauth/authorize",
                    "tokenUrl": "/v1/oauth/token",
                    "scopes": scopes,
                }
            },
        },
        "clientBasic": {
            "type": "http",
            "scheme": "basic",
            "description": "OAuth client credentials (`client_id:client_secret`) at the token "
            "endpoint.",
        },
    }


def build_document(limits: Limits | None = None) -> dict[str, Any]:
    """The document for a server with these field limits (the seed's, or the defaults)."""
    limits = limits or Limits()
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "Document, Vault, Workflow and Audit API (mockserver)",
            "version": f"v1 (mockserver {__version__})",
            "description": DESCRIPTION,
        },
        "servers": [
            {"url": "/v1", "description": "`{base_url}`: the account's default region."},
            {"url": "/us/v1", "description": "`{base_url_us}`: the US data centre."},
            {"url": "/eu/v1", "description": "`{base_url_eu}`: the Swiss/EU data centre."},
        ],
        "tags": [
            {"name": name}
            for name in (
                "Identity",
                "OAuth",
                "Vaults",
                "Documents",
                "Workflows",
                "Audit",
                "Webhooks",
                "Meta",
            )
        ],
        "security": [{"apiKey": []}, {"oauth2": []}],
        "paths": paths(),
        "webhooks": webhooks(),
        "components": {
            "schemas": {
                **resource_schemas(),
                **body_schemas(limits),
                **error_schemas(),
                **webhook_schemas(),
            },
            "responses": response_components(),
            "parameters": parameter_components(),
            "headers": header_components(),
            "securitySchemes": _security_schemes(),
        },
    }


def document_bytes(limits: Limits | None = None) -> bytes:
    """The document as served and printed: sorted keys, two-space indent, trailing newline."""
    return (
        orjson.dumps(build_document(limits), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        + b"\n"
    )
