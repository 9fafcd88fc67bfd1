"""Who is calling: bearer credentials resolved to a principal, and scope checks.

A principal is what every operation needs to know about its caller: which (account,
environment) it may touch, its scopes, the actor its writes are attributed to, and the
rate-limit plan of the credential.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mockserver.core.errors import AuthenticationError, PermissionDenied
from mockserver.domain.models import ApiKey


@dataclass(frozen=True, slots=True)
class Principal:
    account_id: str
    environment: str
    scopes: frozenset[str]
    actor: str  # audit actor: the key's owner or the OAuth user's email
    credential: str  # the key or token itself: the rate-limit identity
    rate_limit: int
    burst: int


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header, or 401."""
    if not authorization:
        raise AuthenticationError(
            "No API key provided. Send it as 'Authorization: Bearer <API_KEY>'."
        ).because("authentication", reason="missing")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise AuthenticationError(
            "Malformed Authorization header. Expected 'Authorization: Bearer <API_KEY>'."
        ).because("authentication", reason="malformed")
    return token


def mask(token: str) -> str:
    """Show a credential the way a dashboard would: its prefix and last four characters."""
    if len(token) <= 12:
        return "*" * len(token)
    head = token[:8] if token.startswith("sk_") else token[:4]
    return f"{head}{'*' * 8}{token[-4:]}"


def principal_for_key(keys: Mapping[str, ApiKey], token: str) -> Principal:
    """Resolve an API key, or 401 for an unknown or revoked one."""
    key = keys.get(token)
    if key is None:
        raise AuthenticationError(f"Invalid API key provided: {mask(token)}").because(
            "authentication", reason="unknown"
        )
    if key.revoked:
        raise AuthenticationError(f"This API key has been revoked: {mask(token)}").because(
            "authentication", reason="revoked"
        )
    return Principal(
        account_id=key.account_id,
        environment=key.environment,
        scopes=key.scopes,
        actor=key.owner,
        credential=key.key,
        rate_limit=key.rate_limit,
        burst=key.burst,
    )


def require_scope(principal: Principal, scope: str | None) -> None:
    """403 when the credential lacks `scope`; None means any valid credential will do."""
    if scope is not None and scope not in principal.scopes:
        raise PermissionDenied(
            f"This credential lacks the '{scope}' scope required for this request."
        ).because("scope", needed=scope, held=sorted(principal.scopes))


def credential_headers(headers: list[tuple[bytes, bytes]]) -> tuple[bytes | None, list[str]]:
    """The request's one `Authorization` value (None if absent) and every `Idempotency-Key`
    value, in one walk over the headers: the only reading of the credential, so the rate
    limits, the account sandbox's choice and the operation never see different callers. A
    second `Authorization` header, whatever its value, is 401: which of the two names the
    caller would be a guess."""
    authorization: bytes | None = None
    keys: list[str] = []
    for name, value in headers:
        if name == b"authorization":
            if authorization is not None:
                raise AuthenticationError(
                    "The request carries more than one Authorization header. "
                    "Send one: 'Authorization: Bearer <API_KEY>'."
                ).because("authentication", reason="malformed")
            authorization = value
        elif name == b"idempotency-key":
            keys.append(value.decode("latin-1"))
    return authorization, keys


def bearer_of(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The token of the request's one well-formed `Authorization: Bearer` header, or None:
    none, malformed, or two headers (which authentication refuses)."""
    try:
        authorization, _ = credential_headers(headers)
        return bearer_token(None if authorization is None else authorization.decode("latin-1"))
    except AuthenticationError:
        return None
