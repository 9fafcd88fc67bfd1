"""OAuth 2.0 authorization-code flow (RFC 6749 section 4.1, PKCE S256 of RFC 7636), sandbox style.

There is no login page: `authorize` approves at once for the seeded user named by `login_hint`
(default: the account's first user) and binds a single-use code to the client, the redirect
URI, the granted scopes and an optional S256 challenge; `oauth_token.exchange` trades it for a
bearer token. `principal_for_token` turns a token back into a `Principal`, so a token works
wherever an API key does. Codes and tokens belong to the client's account and reach its
sandbox; they live in `OAuthState`, which `Store.reset()` rebuilds. Times are whole mock-clock
seconds given by the caller; codes and tokens come from a seeded stream per account, so runs
replay byte for byte.

Errors follow RFC 6749. A problem the client can be told at a trusted redirect URI comes back
as a `Redirect` carrying `error` (section 4.1.2.1); every other problem raises an ApiError whose
`code` is the RFC 6749 error code (section 5.2).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

from mockserver.core.errors import AuthenticationError, BadRequest
from mockserver.core.ids import IdFactory
from mockserver.domain.auth import Principal, mask
from mockserver.domain.models import SCOPES, Account, OAuthClient, User

CODE_PREFIX = "oac_"
TOKEN_PREFIX = "oat_"
CODE_LIFETIME = 600  # seconds; RFC 6749 section 4.1.2 recommends at most ten minutes
TOKEN_ENVIRONMENT = "sandbox"  # where tokens reach: the sandbox approves at once
RATE_LIMIT, BURST = 120, 200  # the sandbox plan (docs/reference/errors-and-limits.md)
GRACE = 86_400  # expired codes and tokens are forgotten a day later, to bound memory
CODES_KEPT = 10_000  # codes kept per server, used or not; the oldest is forgotten first
TOKENS_KEPT = 10_000  # access tokens kept per server; the oldest is forgotten first
# RFC 7636 section 4.1: 43..128 unreserved characters (for verifiers and S256 challenges)
PKCE_VALUE = re.compile(r"[A-Za-z0-9._~-]{43,128}\Z")


@dataclass(slots=True)
class AuthorizationCode:
    """A code `authorize` issued; `token` is set once it has been exchanged."""

    code: str
    client_id: str
    account_id: str
    user_email: str
    scopes: frozenset[str]
    redirect_uri: str  # where the code was sent
    redirect_uri_given: bool  # whether the request named it (then the exchange must too)
    code_challenge: str | None
    expires_at: int
    token: str | None = None


@dataclass(frozen=True, slots=True)
class AccessToken:
    token: str
    client_id: str
    account_id: str
    user_email: str
    scopes: frozenset[str]
    expires_at: int
    expires_in: int
    revoked: bool = False


@dataclass(frozen=True, slots=True)
class Redirect:
    """Where `authorize` sends the user agent: the redirect URI with `code` or `error`."""

    location: str


class OAuthState:
    """The registered clients and the live codes and tokens of one server, in the order they
    were issued. Expired ones are forgotten a day after expiry (so a late exchange still hears
    "expired"), and beyond `CODES_KEPT` codes or `TOKENS_KEPT` tokens the oldest is forgotten
    at once: a forgotten code is `invalid_grant`, a forgotten token a 401, as unknown ones."""

    __slots__ = ("_ids", "_random_seed", "_sweep_at", "clients", "codes", "tokens")

    def __init__(self, clients: Mapping[str, OAuthClient], random_seed: int) -> None:
        self.clients: dict[str, OAuthClient] = dict(clients)
        self.codes: OrderedDict[str, AuthorizationCode] = OrderedDict()
        self.tokens: OrderedDict[str, AccessToken] = OrderedDict()
        self._random_seed = random_seed
        self._ids: dict[str, IdFactory] = {}
        self._sweep_at = 1024

    def ids(self, account_id: str) -> IdFactory:
        """The account's own stream, so one account's logins never shift another's values."""
        ids = self._ids.get(account_id)
        if ids is None:
            ids = self._ids[account_id] = IdFactory(self._random_seed, f"{account_id}/oauth")
        return ids

    def sweep(self, now: int) -> None:
        """Forget codes and tokens expired over a day ago; amortised O(1) per issue."""
        if len(self.codes) + len(self.tokens) < self._sweep_at:
            return
        cutoff = now - GRACE
        self.codes = OrderedDict((k, c) for k, c in self.codes.items() if c.expires_at > cutoff)
        self.tokens = OrderedDict((k, t) for k, t in self.tokens.items() if t.expires_at > cutoff)
        self._sweep_at = max(1024, 2 * (len(self.codes) + len(self.tokens)))

    def add_code(self, code: AuthorizationCode, now: int) -> None:
        """Keep a newly issued code, forgetting the oldest beyond `CODES_KEPT`."""
        self.sweep(now)
        self.codes[code.code] = code
        while len(self.codes) > CODES_KEPT:
            self.codes.popitem(last=False)

    def add_token(self, token: AccessToken, now: int) -> None:
        """Keep a newly issued token, forgetting the oldest beyond `TOKENS_KEPT`."""
        self.sweep(now)
        self.tokens[token.token] = token
        while len(self.tokens) > TOKENS_KEPT:
            self.tokens.popitem(last=False)


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


# --- tokens as credentials -------------------------------------------------------------------


def principal_for_token(state: OAuthState, token: str, now: int) -> Principal:
    """The caller behind an access token: the user, with the granted scopes; 401 if the
    token is unknown, revoked or expired."""
    access = state.tokens.get(token)
    if access is None:
        raise AuthenticationError(f"Invalid access token provided: {mask(token)}").because(
            "authentication", reason="unknown"
        )
    if access.revoked:
        raise AuthenticationError(f"This access token has been revoked: {mask(token)}").because(
            "authentication", reason="revoked"
        )
    if now >= access.expires_at:
        raise AuthenticationError(f"This access token has expired: {mask(token)}").because(
            "authentication", reason="expired"
        )
    return Principal(
        account_id=access.account_id,
        environment=TOKEN_ENVIRONMENT,
        scopes=access.scopes,
        actor=access.user_email,
        credential=access.token,
        rate_limit=RATE_LIMIT,
        burst=BURST,
    )
