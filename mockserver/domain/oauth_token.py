"""The token endpoint of the authorization-code flow (RFC 6749 sections 2.3.1, 4.1.3, 5).

`authenticate_client` accepts HTTP Basic (what OAuth libraries send by default) or
`client_id` and `client_secret` form fields, never both at once; every seeded client is
confidential, so a request without a secret is refused with a 401 `invalid_client` (the HTTP
layer adds `WWW-Authenticate`). `exchange` trades a single-use code for an access token,
checking the client, the redirect URI, expiry on the mock clock and the PKCE verifier
(RFC 7636 section 4.6); its errors are 400s whose `code` is the RFC 6749 error code.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
from collections.abc import Mapping
from urllib.parse import unquote_plus

from mockserver.core.errors import AuthenticationError
from mockserver.core.secrets import same_secret
from mockserver.domain.models import OAuthClient
from mockserver.domain.oauth import PKCE_VALUE, oauth_error
from mockserver.domain.oauth_state import TOKEN_PREFIX, AccessToken, AuthorizationCode, OAuthState

# --- client authentication -------------------------------------------------------------------


def invalid_client(message: str, reason: str = "unknown") -> AuthenticationError:
    """401 `invalid_client`; `reason`: what the client's credentials were (missing, malformed,
    unknown) for the journal's `explain`."""
    error = AuthenticationError(message, code="invalid_client")
    return error.because("authentication", reason=reason)


def authenticate_client(
    state: OAuthState, authorization: str | None, values: Mapping[str, str]
) -> OAuthClient:
    """The client that sent the request, or `invalid_client` (401) / `invalid_request` (400)."""
    if authorization is not None and authorization.strip():
        candidates = _basic_credentials(authorization)
        if "client_secret" in values:
            raise oauth_error(
                "invalid_request",
                "Use one client authentication method: HTTP Basic or form fields, not both.",
                "client_secret",
            )
        if "client_id" in values and values["client_id"] not in {c[0] for c in candidates}:
            raise oauth_error(
                "invalid_request",
                "The client_id field differs from the one in the Authorization header.",
                "client_id",
            )
    else:
        client_id = values.get("client_id")
        secret = values.get("client_secret")
        if client_id is None:
            raise invalid_client(
                "Client authentication required: send HTTP Basic credentials, "
                "or client_id and client_secret form fields.",
                "missing",
            )
        if secret is None:
            raise invalid_client(f"client_secret is required for client '{client_id}'.", "missing")
        candidates = [(client_id, secret)]
    for client_id, secret in candidates:
        client = state.clients.get(client_id)
        if client is not None and same_secret(secret, client.client_secret):
            return client
    raise invalid_client("Client authentication failed: unknown client or wrong secret.")


def _basic_credentials(authorization: str) -> list[tuple[str, str]]:
    """The (client_id, client_secret) readings of a Basic header.

    RFC 6749 wants both form-encoded before base64, but many libraries (authlib among them)
    send them raw. The two readings differ only for values with `%` or `+`; both are tried."""
    scheme, _, credentials = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        raise invalid_client(
            f"Unsupported client authentication scheme '{scheme}': use Basic.", "malformed"
        )
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise invalid_client(
            "Malformed Basic credentials: not base64 of UTF-8.", "malformed"
        ) from None
    client_id, colon, secret = decoded.partition(":")
    if not colon or not client_id:
        raise invalid_client(
            "Malformed Basic credentials: expected 'client_id:client_secret'.", "malformed"
        )
    raw = (client_id, secret)
    form_decoded = (unquote_plus(client_id), unquote_plus(secret))
    return [raw] if form_decoded == raw else [raw, form_decoded]


# --- the exchange ----------------------------------------------------------------------------


def exchange(
    state: OAuthState, client: OAuthClient, values: Mapping[str, str], now: int
) -> AccessToken:
    """Trade an authorization code for an access token (RFC 6749 section 4.1.3).

    A code is single-use: presenting it again is `invalid_grant` and revokes the token it was
    exchanged for (section 4.1.2). A failed exchange leaves the code usable."""
    grant_type = values.get("grant_type")
    if grant_type is None:
        raise oauth_error(
            "invalid_request", "The 'grant_type' parameter is required.", "grant_type"
        )
    if grant_type != "authorization_code":
        raise oauth_error(
            "unsupported_grant_type",
            f"grant_type '{grant_type}' is not supported: use 'authorization_code'.",
            "grant_type",
        )
    code = _code(state, client, values, now)
    _check_verifier(code, values.get("code_verifier"))
    token = AccessToken(
        token=state.ids(code.account_id).new(TOKEN_PREFIX, 32),
        client_id=client.client_id,
        account_id=code.account_id,
        user_email=code.user_email,
        scopes=code.scopes,
        expires_at=now + client.token_lifetime,
        expires_in=client.token_lifetime,
    )
    code.token = token.token
    state.add_token(token, now)
    return token


def _code(
    state: OAuthState, client: OAuthClient, values: Mapping[str, str], now: int
) -> AuthorizationCode:
    """The unused, unexpired code of this client, issued for this redirect URI."""
    value = values.get("code")
    if value is None:
        raise oauth_error("invalid_request", "The 'code' parameter is required.", "code")
    code = state.codes.get(value)
    if code is None or code.client_id != client.client_id:
        raise oauth_error("invalid_grant", "Invalid authorization code.", "code")
    if code.token is not None:
        issued = state.tokens.get(code.token)
        if issued is not None:
            state.tokens[code.token] = dataclasses.replace(issued, revoked=True)
        raise oauth_error(
            "invalid_grant",
            "This authorization code has already been used; the token issued for it is revoked.",
            "code",
        )
    if now >= code.expires_at:
        raise oauth_error("invalid_grant", "This authorization code has expired.", "code")
    redirect_uri = values.get("redirect_uri")
    if redirect_uri is None and code.redirect_uri_given:
        raise oauth_error(
            "invalid_grant",
            "The 'redirect_uri' parameter is required: the authorization request had one.",
            "redirect_uri",
        )
    if redirect_uri is not None and redirect_uri != code.redirect_uri:
        raise oauth_error(
            "invalid_grant",
            "redirect_uri does not match the one the authorization code was issued for.",
            "redirect_uri",
        )
    return code


def _check_verifier(code: AuthorizationCode, verifier: str | None) -> None:
    """PKCE (RFC 7636 section 4.6): the verifier must hash to the challenge, if there was one."""
    if code.code_challenge is None:
        if verifier is not None:
            raise oauth_error(
                "invalid_grant",
                "code_verifier given, but the authorization request had no code_challenge.",
                "code_verifier",
            )
        return
    if verifier is None:
        raise oauth_error(
            "invalid_grant", "The 'code_verifier' parameter is required (PKCE).", "code_verifier"
        )
    if not PKCE_VALUE.match(verifier):
        raise oauth_error(
            "invalid_request",
            "code_verifier must be 43 to 128 URL-safe characters.",
            "code_verifier",
        )
    if not same_secret(s256(verifier), code.code_challenge):
        raise oauth_error(
            "invalid_grant", "code_verifier does not match the code_challenge.", "code_verifier"
        )


def s256(verifier: str) -> str:
    """The S256 challenge of a verifier: BASE64URL(SHA256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def token_response(token: AccessToken) -> dict[str, str | int]:
    """The body of a successful token response (docs/reference/endpoints.md)."""
    return {
        "access_token": token.token,
        "token_type": "Bearer",
        "expires_in": token.expires_in,
        "scope": " ".join(sorted(token.scopes)),
    }
