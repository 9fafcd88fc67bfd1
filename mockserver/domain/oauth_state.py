"""The OAuth 2.0 state of one server (registered clients, live codes and tokens) and access
tokens as credentials: what every sandbox holds and every bearer token is checked against. The
authorization flow that fills it (`oauth.py`, `oauth_token.py`) is imported by the first OAuth
request: most sandboxes never see one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from mockserver.core.errors import AuthenticationError
from mockserver.core.ids import IdFactory
from mockserver.domain.auth import Principal, mask
from mockserver.domain.models import OAuthClient

TOKEN_PREFIX = "oat_"
TOKEN_ENVIRONMENT = "sandbox"  # where tokens reach: the sandbox approves at once
RATE_LIMIT, BURST = 120, 200  # the sandbox plan (docs/reference/errors-and-limits.md)
GRACE = 86_400  # expired codes and tokens are forgotten a day later, to bound memory
CODES_KEPT = 10_000  # codes kept per server, used or not; the oldest is forgotten first
TOKENS_KEPT = 10_000  # access tokens kept per server; the oldest is forgotten first


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
