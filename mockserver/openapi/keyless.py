"""The operations that take no bearer credential: OAuth's authorize and token endpoints (how
one gets a credential), the pre-signed export download (its URL is the authority) and this
document. They are not rate-limited per key, so their responses list no rate-limit headers;
the OAuth ones carry `Cache-Control: no-store` (RFC 6749 section 5.1).
"""

from __future__ import annotations

from typing import Any

from mockserver.openapi.fields import Schema, ref
from mockserver.openapi.object_schemas import EXPORT_ID
from mockserver.openapi.requests import path_param, query, token_form
from mockserver.openapi.responses import OAUTH_CODES, error_response, success

Operation = dict[str, Any]

# The default seed's client, and values of an authorization request that it approves.
SEEDED_CLIENT = "mock_client"
EXAMPLES: dict[str, Schema] = {
    "response_type": {"examples": ["code"]},
    "redirect_uri": {"examples": ["http://127.0.0.1:8765/callback"]},
    "scope": {"examples": ["documents:read"]},
    "state": {"examples": ["af0ifjsldkj"]},
}

NO_STORE = {
    "Cache-Control": {"schema": {"type": "string", "const": "no-store"}, "required": True},
    "Pragma": {"schema": {"type": "string", "const": "no-cache"}, "required": True},
}


def _download() -> Operation:
    csv: Schema = {"type": "string"}
    return {
        "operationId": "downloadAuditExport",
        "summary": "Download an export's CSV through its pre-signed URL",
        "description": "Needs no credential: the URL's `expires` and `signature` are the "
        "authority. Take the whole URL from the job's `download_url`.",
        "tags": ["Audit"],
        "security": [],
        "parameters": [
            path_param("export_id", EXPORT_ID),
            query(
                "expires",
                {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
                "Unix time the URL expires.",
                required=True,
            ),
            query(
                "signature",
                {"type": "string"},
                "HMAC of the job and `expires`.",
                required=True,
            ),
        ],
        "responses": {
            "200": success(
                200,
                "The CSV, oldest event first, CRLF line ends.",
                csv,
                credentialed=False,
                media_type="text/csv",
                headers={"Content-Disposition": {"schema": {"type": "string"}, "required": True}},
            ),
            "403": error_response(403, credentialed=False),
            "404": error_response(404, credentialed=False),
            "500": error_response(500, credentialed=False),
        },
    }


def _oauth() -> dict[str, dict[str, Operation]]:
    text = {"type": "string"}
    names = (
        ("response_type", "`code` (anything else is redirected back with an error)."),
        ("redirect_uri", "A registered redirect URI; may be left out when there is only one."),
        ("scope", "Space-separated scopes; none means every permission of the user."),
        ("state", "Returned unchanged in the redirect."),
        ("login_hint", "The seeded user who approves (default: the account's first user)."),
        ("code_challenge", "PKCE (RFC 7636) S256 challenge."),
        ("code_challenge_method", "`S256` (`plain` is refused)."),
    )
    authorize: Operation = {
        "operationId": "oauthAuthorize",
        "summary": "OAuth 2.0 authorization endpoint: the sandbox approves at once",
        "description": "Answers 302 to the redirect URI with `code` and `state`, or with "
        "`error` and `error_description` (RFC 6749 section 4.1.2.1). A missing or unknown "
        "client, or an unregistered redirect URI, is never redirected to: 400.",
        "tags": ["OAuth"],
        "security": [],
        "parameters": [
            query(
                "client_id",
                {"type": "string", "minLength": 1, "examples": [SEEDED_CLIENT]},
                "A registered client (an unknown one is 400).",
                required=True,
            ),
            *(query(name, {**text, **EXAMPLES.get(name, {})}, what) for name, what in names),
        ],
        "responses": {
            "302": success(
                302,
                "Redirect to the client with `code` and `state`, or with `error`.",
                None,
                credentialed=False,
                headers={
                    "Location": {"schema": {"type": "string"}, "required": True},
                    **NO_STORE,
                },
            ),
            "400": error_response(400, credentialed=False, oauth=True, extra=NO_STORE),
            "404": error_response(404, credentialed=False),
            "500": error_response(500, credentialed=False),
        },
    }
    challenge = {"WWW-Authenticate": {"schema": {"type": "string"}, "required": True}}
    token: Operation = {
        "operationId": "oauthToken",
        "summary": "Exchange an authorization code for an access token",
        "description": "Client credentials as HTTP Basic or as `client_id`/`client_secret` "
        f"fields. Errors carry the RFC 6749 code in `error.code` ({', '.join(OAUTH_CODES)}).",
        "tags": ["OAuth"],
        "security": [{"clientBasic": []}, {}],
        "requestBody": {
            "required": True,
            "content": {"application/x-www-form-urlencoded": {"schema": token_form()}},
        },
        "responses": {
            "200": success(
                200, "The access token.", ref("TokenResponse"), credentialed=False, headers=NO_STORE
            ),
            "400": error_response(400, credentialed=False, oauth=True, extra=NO_STORE),
            "401": error_response(
                401, credentialed=False, oauth=True, extra={**NO_STORE, **challenge}
            ),
            "404": error_response(404, credentialed=False),
            "413": error_response(413, credentialed=False, oauth=True, extra=NO_STORE),
            "500": error_response(500, credentialed=False),
        },
    }
    return {"/oauth/authorize": {"get": authorize}, "/oauth/token": {"post": token}}


def _self() -> dict[str, dict[str, Operation]]:
    return {
        "/openapi.json": {
            "get": {
                "operationId": "getOpenApi",
                "summary": "This document (no credential needed)",
                "tags": ["Meta"],
                "security": [],
                "responses": {
                    "200": success(
                        200, "The OpenAPI 3.1 document.", {"type": "object"}, credentialed=False
                    ),
                    "404": error_response(404, credentialed=False),
                    "500": error_response(500, credentialed=False),
                },
            }
        }
    }


def keyless_paths() -> dict[str, dict[str, Operation]]:
    return {
        **_oauth(),
        "/audit_logs/export/{export_id}/download": {"get": _download()},
        **_self(),
    }
