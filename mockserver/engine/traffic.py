"""The rate limits every `/v1` request passes before its operation. No HTTP here: the web
layer hands in the request's facts (its credential, `Idempotency-Key` values, method, path,
client address).

`Traffic.admit` resolves the credential once (the operation uses the principal it finds),
counts the request against its window and gives the `X-RateLimit-*` headers, or the 429 that
refuses it. A valid API key or OAuth token is limited by its own plan; anything else (no or a
bad credential, the OAuth endpoints, export downloads, the OpenAPI document) by its client
address with the sandbox plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Protocol, final

from mockserver.core.errors import ApiError, RateLimited
from mockserver.domain.auth import Principal
from mockserver.domain.models import ApiKey
from mockserver.domain.ratelimit import ANONYMOUS_PLAN, Verdict
from mockserver.domain.store import Store
from mockserver.engine.calls import Headers, principal_for

if TYPE_CHECKING:
    from mockserver.scenarios.decisions import ForcedLimit


# Routes that take no bearer credential: always limited by client address.
_OAUTH: Final = "/v1/oauth/"
_OPENAPI: Final = "/v1/openapi.json"
_EXPORTS: Final = "/v1/audit_logs/export/"  # a download: an export's path ending so
_DOWNLOAD: Final = "/download"
_NOT_IDEMPOTENT = "/v1/oauth/"  # the token endpoint reads a form, not JSON: keys are ignored
_PRINCIPALS_KEPT = 1024  # distinct Authorization values whose principal is kept


class Bursts(Protocol):
    """The forced 429 bursts of a scenario engine. `bursts`, its burst rules, is empty while
    none is loaded, the common case: it is read before `forced_rate_limit(credential, method,
    path)` (the burst a request falls in, or None) is called."""

    @property
    def bursts(self) -> Sequence[object]: ...

    def forced_rate_limit(self, identity: str, method: str, path: str) -> ForcedLimit | None: ...


@final
class Admission:
    """A counted request: its rate-limit headers, its caller (None: anonymous), the values of
    its `Idempotency-Key` headers (a POST to an operation that takes JSON only), and, when it
    is refused, the 429 and the scenario rule that forced it (if one did)."""

    __slots__ = ("headers", "idempotency_keys", "principal", "refusal", "rule")

    def __init__(
        self,
        headers: Headers,
        principal: Principal | None,
        idempotency_keys: list[str],
        refusal: RateLimited | None = None,
        rule: str | None = None,
    ) -> None:
        self.headers = headers
        self.principal = principal
        self.idempotency_keys = idempotency_keys
        self.refusal = refusal
        self.rule = rule


def _credential_free(path: str) -> bool:
    return path.startswith((_OAUTH, _OPENAPI)) or (
        path.startswith(_EXPORTS) and path.endswith(_DOWNLOAD)
    )


def _rate_headers(limit: int, verdict: Verdict) -> Headers:
    limit_header = _LIMIT_HEADERS.get(limit)
    if limit_header is None:
        limit_header = (b"x-ratelimit-limit", str(limit).encode())
        if len(_LIMIT_HEADERS) < 64:  # plans have a handful of limits
            _LIMIT_HEADERS[limit] = limit_header
    return [
        limit_header,
        (b"x-ratelimit-remaining", str(verdict.remaining).encode()),
        (b"x-ratelimit-reset", str(verdict.reset).encode()),
    ]


_LIMIT_HEADERS: dict[int, tuple[bytes, bytes]] = {}


def _refusal(limit: int, burst: int, verdict: Verdict) -> RateLimited:
    error = RateLimited(
        f"Rate limit exceeded: at most {burst} requests in any 60 seconds "
        f"(sustained rate {limit}/min). Retry after {verdict.retry_after} s.",
        headers={
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": str(verdict.reset),
            "Retry-After": str(verdict.retry_after),
        },
    )
    # A refused request finds its window full: it counts `burst` requests.
    return error.because(
        "rate_limit", limit=limit, burst=burst, used=burst, retry_after=verdict.retry_after
    )


def _describes(principal: Principal, key: ApiKey) -> bool:
    """Whether `principal` is what `principal_for_key` gives for `key` as it is now."""
    return (
        not key.revoked
        and principal.credential == key.key
        and principal.scopes is key.scopes
        and principal.account_id == key.account_id
        and principal.environment == key.environment
        and principal.actor == key.owner
        and principal.rate_limit == key.rate_limit
        and principal.burst == key.burst
    )


class Traffic:
    """Rate limiting over one store."""

    __slots__ = ("_principals", "bursts", "store")

    def __init__(self, store: Store, bursts: Bursts | None = None) -> None:
        self.store = store
        self.bursts = bursts
        self._principals: dict[bytes, tuple[ApiKey, Principal]] = {}

    def admit(
        self,
        authorization: bytes | None,
        keys: list[str],
        method: str,
        path: str,
        client: str,
    ) -> Admission:
        """Count the request (`authorization`: its first `Authorization` value; `keys`: its
        `Idempotency-Key` values; `client`: its address). A full window gives an Admission
        with the 429 to answer."""
        principal = None
        if authorization is not None and not _credential_free(path):
            principal = self._principal(authorization)
        now = self.store.clock.now()
        if principal is None:
            limit, burst = ANONYMOUS_PLAN
            verdict = self.store.rate_limits.hit_anonymous(client, now)
        else:
            limit, burst = principal.rate_limit, principal.burst
            bursts = self.bursts
            forced = None
            if bursts is not None and bursts.bursts:
                forced = bursts.forced_rate_limit(principal.credential, method, path)
            if forced is not None:  # a scenario's burst: the window counts as full, uncounted
                verdict = Verdict(False, 0, forced.reset_at, forced.retry_after)
                refusal = _refusal(limit, burst, verdict).because(
                    "scenario",
                    rule=forced.rule,
                    scenario=forced.scenario,
                    retry_after=verdict.retry_after,
                )
                return Admission([], principal, [], refusal, forced.rule)
            verdict = self.store.rate_limits.hit(principal.credential, burst, now)
        if not verdict.admitted:
            return Admission([], principal, [], _refusal(limit, burst, verdict))
        if not keys or method != "POST" or path.startswith(_NOT_IDEMPOTENT):
            keys = []
        return Admission(_rate_headers(limit, verdict), principal, keys)

    def _principal(self, authorization: bytes) -> Principal | None:
        """The caller behind an Authorization header, or None (the operation answers 401; the
        address is limited meanwhile). An API key's principal is kept, and used again while
        the store holds the same key object, unrevoked and unchanged."""
        cached = self._principals.get(authorization)
        if cached is not None:
            key, principal = cached
            if self.store.keys.get(key.key) is key and _describes(principal, key):
                return principal
        try:
            principal = principal_for(self.store, authorization.decode("latin-1"))
        except ApiError:
            return None
        found = self.store.keys.get(principal.credential)
        if found is not None and _describes(principal, found):  # an API key, not OAuth
            if len(self._principals) >= _PRINCIPALS_KEPT:
                self._principals.clear()
            self._principals[authorization] = (found, principal)
        return principal
