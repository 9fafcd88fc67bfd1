"""OAuth 2.0 authorization-code flow (RFC 6749 section 4.1, PKCE S256 of RFC 7636), sandbox style.

There is no login page: `authorize` approves at once for the seeded user named by `login_hint`
(default: the account's first user) and binds a single-use code to the client, the redirect
URI, the granted scopes and an optional S256 challenge; `oauth_token.exchange` trades it for a
bearer token. `oauth_state.principal_for_token` turns a token back into a `Principal`, so a
token works wherever an API key does. Codes and tokens belong to the client's account and reach
its sandbox; they live in `oauth_state.OAuthState`, which `Store.reset()` rebuilds. Times are
whole mock-clock seconds given by the caller; codes and tokens come from a seeded stream per
account, so runs replay byte for byte.

Errors follow RFC 6749. A problem the client can be told at a trusted redirect URI comes back
as a `Redirect` carrying `error` (section 4.1.2.1); every other problem raises an ApiError whose
`code` is the RFC 6749 error code (section 5.2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

from mockserver.core.errors import BadRequest
from mockserver.domain.models import SCOPES, Account, OAuthClient, User
from mockserver.domain.oauth_state import AuthorizationCode, OAuthState

CODE_PREFIX = "oac_"
CODE_LIFETIME = 600  # seconds; RFC 6749 section 4.1.2 recommends at most ten minutes
# RFC 7636 section 4.1: 43..128 unreserved characters (for verifiers and S256 challenges)
PKCE_VALUE = re.compile(r"[A-Za-z0-9._~-]{43,128}\Z")


@dataclass(frozen=True, slots=True)
class Redirect:
    """Where `authorize` sends the user agent: the redirect URI with `code` or `error`."""

    location: str


def oauth_error(code: str, message: str, param: str | None = None) -> BadRequest:
    """A 400 `bad_request` carrying the RFC 6749 error code."""
    return BadRequest(message, param=param, code=code)


class _Refused(Exception):
    """An authorization error that is reported at the client's redirect URI."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description


def single_values(pairs: Iterable[tuple[str, str]]) -> tuple[dict[str, str], set[str]]:
    """Parameters by name, and the names given more than once (RFC 6749 section 3.1 forbids
    repeats). Empty values count as omitted, as section 3.1 says."""
    values: dict[str, str] = {}
    repeated: set[str] = set()
    for name, value in pairs:
        if not value:
            continue
        if name in values:
            repeated.add(name)
        values[name] = value
    return values, repeated


# --- the authorization endpoint --------------------------------------------------------------


def authorize(
    state: OAuthState, accounts: Mapping[str, Account], params: Iterable[tuple[str, str]], now: int
) -> Redirect:
    """Approve an authorization request at once: a redirect with a fresh code, or with `error`.

    A missing, unknown or repeated `client_id`, or a `redirect_uri` the client did not register,
    raises instead: redirecting to an unverified URI would make the mock an open redirector."""
    values, repeated = single_values(params)
    client = _client_of(state, values, repeated)
    target = _redirect_target(client, values, repeated)
    client_state = None if "state" in repeated else values.get("state")
    try:
        code = _grant(state, accounts[client.account_id], client, target, values, repeated, now)
    except _Refused as refused:
        error = {"error": refused.code, "error_description": refused.description}
        return Redirect(with_query(target, {**error, "state": client_state}))
    return Redirect(with_query(target, {"code": code.code, "state": client_state}))


def _client_of(state: OAuthState, values: dict[str, str], repeated: set[str]) -> OAuthClient:
    if "client_id" in repeated:
        raise oauth_error("invalid_request", "'client_id' was given more than once.", "client_id")
    client_id = values.get("client_id")
    if client_id is None:
        raise oauth_error("invalid_request", "The 'client_id' parameter is required.", "client_id")
    client = state.clients.get(client_id)
    if client is None:
        raise oauth_error("unauthorized_client", f"Unknown client_id '{client_id}'.", "client_id")
    return client


def _redirect_target(client: OAuthClient, values: dict[str, str], repeated: set[str]) -> str:
    """The redirect URI to answer at: the one given, which must be registered (exact match,
    RFC 6749 section 3.1.2.3), or the client's only registered one."""
    if "redirect_uri" in repeated:
        raise oauth_error(
            "invalid_request", "'redirect_uri' was given more than once.", "redirect_uri"
        )
    uri = values.get("redirect_uri")
    if uri is None:
        if len(client.redirect_uris) == 1:
            return client.redirect_uris[0]
        raise oauth_error(
            "invalid_request",
            "The 'redirect_uri' parameter is required: the client registered several.",
            "redirect_uri",
        )
    if uri not in client.redirect_uris:
        raise oauth_error(
            "invalid_request",
            f"The redirect_uri '{uri}' is not registered for client '{client.client_id}'.",
            "redirect_uri",
        )
    return uri


def _grant(
    state: OAuthState,
    account: Account,
    client: OAuthClient,
    target: str,
    values: dict[str, str],
    repeated: set[str],
    now: int,
) -> AuthorizationCode:
    """Check the rest of the request (any failure is a `_Refused`) and issue a code."""
    if repeated:
        raise _Refused("invalid_request", f"'{min(repeated)}' was given more than once.")
    response_type = values.get("response_type")
    if response_type is None:
        raise _Refused("invalid_request", "The 'response_type' parameter is required.")
    if response_type != "code":
        raise _Refused(
            "unsupported_response_type",
            f"response_type '{response_type}' is not supported: use 'code'.",
        )
    challenge = _code_challenge(values)
    user = _user(account, values.get("login_hint"))
    scopes = _granted_scopes(user, values.get("scope"))
    code = AuthorizationCode(
        code=state.ids(account.id).new(CODE_PREFIX, 32),
        client_id=client.client_id,
        account_id=account.id,
        user_email=user.email,
        scopes=scopes,
        redirect_uri=target,
        redirect_uri_given="redirect_uri" in values,
        code_challenge=challenge,
        expires_at=now + CODE_LIFETIME,
    )
    state.add_code(code, now)
    return code


def _code_challenge(values: dict[str, str]) -> str | None:
    """The S256 challenge, if PKCE is used; `plain` is refused, as OAuth 2.1 does."""
    challenge = values.get("code_challenge")
    method = values.get("code_challenge_method")
    if challenge is None:
        if method is not None:
            raise _Refused("invalid_request", "code_challenge_method given without code_challenge.")
        return None
    if method != "S256":
        raise _Refused(
            "invalid_request",
            "Only code_challenge_method=S256 is supported (plain is not)."
            if method
            else "code_challenge_method=S256 is required with a code_challenge.",
        )
    if not PKCE_VALUE.match(challenge):
        raise _Refused("invalid_request", "code_challenge must be 43 to 128 URL-safe characters.")
    return challenge


def _user(account: Account, login_hint: str | None) -> User:
    """The user who approves: the one `login_hint` names (case-insensitive), else the first."""
    if not account.users:
        raise _Refused("access_denied", f"Account '{account.id}' has no user to approve.")
    if login_hint is None:
        return account.users[0]
    for user in account.users:
        if user.email.lower() == login_hint.lower():
            return user
    raise _Refused("invalid_request", f"No user '{login_hint}' in account '{account.id}'.")


def _granted_scopes(user: User, requested: str | None) -> frozenset[str]:
    """The requested scopes the user holds; no `scope` means all the user's permissions."""
    held = frozenset(user.permissions)
    if requested is None:
        return held
    names = requested.split()
    unknown = [name for name in names if name not in SCOPES]
    if unknown:
        raise _Refused(
            "invalid_scope", f"Unknown scope '{unknown[0]}'. Scopes: {' '.join(SCOPES)}."
        )
    granted = held.intersection(names)
    if not granted:
        raise _Refused(
            "invalid_scope", f"User '{user.email}' holds none of the scopes '{requested}'."
        )
    return granted


def with_query(uri: str, params: Mapping[str, str | None]) -> str:
    """`uri` with `params` (None values left out) added to its query, which is kept
    (RFC 6749 section 3.1.2)."""
    parts = urlsplit(uri)
    extra = urlencode([(k, v) for k, v in params.items() if v is not None])
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit(parts._replace(query=query))
