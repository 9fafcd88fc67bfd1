"""Rate limits and idempotency keys in ASGI terms, for the pipeline to run on every request.

`Traffic.admit` resolves the credential once (leaving the principal in the scope for the
endpoint wrapper), counts the request against its window and returns the `X-RateLimit-*`
headers, or raises 429 carrying them. A valid API key or OAuth token is limited by its own plan;
anything else (no or a bad credential, the OAuth endpoints, export downloads, the OpenAPI
document) by its client address with the sandbox plan.

`Traffic.claim` handles a POST with an `Idempotency-Key`: it reads the body (so it can
fingerprint it), then either refuses the request (409), answers a kept response again
(`Replay`), or lets it run (`Ticket`), which hands the buffered body to the app and keeps the
response it sends. The decision and the claim are made without an await between the lookup
and the write, so concurrent requests on the one event loop cannot both run a key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, final

from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive, Scope

from mockserver.core.errors import ApiError, BadRequest, RateLimited
from mockserver.domain import idempotency
from mockserver.domain.auth import Principal, require_scope
from mockserver.domain.idempotency import Record
from mockserver.domain.models import ApiKey
from mockserver.domain.ratelimit import ANONYMOUS_PLAN, Verdict
from mockserver.domain.store import Store
from mockserver.engine.calls import principal_for
from mockserver.web.body import MAX_BODY
from mockserver.web.context import RequestContext
from mockserver.web.headers import credential_headers, first_header

if TYPE_CHECKING:
    from mockserver.scenarios.engine import ForcedLimit

Headers = list[tuple[bytes, bytes]]
StoredResponse = bytes  # see `pack_response`

# Routes that take no bearer credential: always limited by client address.
_CREDENTIAL_FREE = ("/v1/oauth/", "/v1/openapi.json")
_DOWNLOAD = ("/v1/audit_logs/export/", "/download")
_NOT_IDEMPOTENT = "/v1/oauth/"  # the token endpoint reads a form, not JSON: keys are ignored
REPLAYED = (b"idempotent-replayed", b"true")
_PRINCIPALS_KEPT = 1024  # distinct Authorization values whose principal is kept


@final
class Admission:
    """An admitted request: its rate-limit headers, its caller (None: anonymous) and the
    values of its `Idempotency-Key` headers (POST to an operation that takes JSON only)."""

    __slots__ = ("headers", "idempotency_keys", "principal")

    def __init__(
        self, headers: Headers, principal: Principal | None, idempotency_keys: list[str]
    ) -> None:
        self.headers = headers
        self.principal = principal
        self.idempotency_keys = idempotency_keys


def _credential_free(path: str) -> bool:
    return path.startswith(_CREDENTIAL_FREE) or (
        path.startswith(_DOWNLOAD[0]) and path.endswith(_DOWNLOAD[1])
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
    return RateLimited(
        f"Rate limit exceeded: at most {burst} requests in any 60 seconds "
        f"(sustained rate {limit}/min). Retry after {verdict.retry_after} s.",
        headers={
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": str(verdict.reset),
            "Retry-After": str(verdict.retry_after),
        },
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


# A scenario's forced 429 burst: (credential, method, path) -> the burst, or None.
ForcedLimitHook = Callable[[str, str, str], "ForcedLimit | None"]


class Traffic:
    """Rate limiting and idempotency over one store."""

    __slots__ = ("_principals", "forced_limit", "store")

    def __init__(self, store: Store, forced_limit: ForcedLimitHook | None = None) -> None:
        self.store = store
        self.forced_limit = forced_limit
        self._principals: dict[bytes, tuple[ApiKey, Principal]] = {}

    def admit(self, scope: Scope, path: str, context: RequestContext) -> Admission:
        """Count the request; raise RateLimited (with the headers) when its window is full.
        A valid credential's principal is left in `context` for the endpoint."""
        authorization, keys = credential_headers(scope)
        principal = None
        if authorization is not None and not _credential_free(path):
            principal = self._principal(authorization)
        now = self.store.clock.now()
        if principal is None:
            client = scope.get("client")
            limit, burst = ANONYMOUS_PLAN
            verdict = self.store.rate_limits.hit_anonymous(client[0] if client else "", now)
        else:
            context.principal = principal
            limit, burst = principal.rate_limit, principal.burst
            hook = self.forced_limit
            forced = None if hook is None else hook(principal.credential, scope["method"], path)
            if forced is not None:  # a scenario's burst: the window counts as full, uncounted
                context.rule = forced.rule
                raise _refusal(limit, burst, Verdict(False, 0, forced.reset_at, forced.retry_after))
            verdict = self.store.rate_limits.hit(principal.credential, burst, now)
        if not verdict.admitted:
            raise _refusal(limit, burst, verdict)
        if not keys or scope["method"] != "POST" or path.startswith(_NOT_IDEMPOTENT):
            keys = []
        return Admission(_rate_headers(limit, verdict), principal, keys)

    def _principal(self, authorization: bytes) -> Principal | None:
        """The caller behind an Authorization header, or None (the endpoint answers 401; the
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

    async def claim(
        self,
        scope: Scope,
        receive: Receive,
        context: RequestContext,
        principal: Principal,
        keys: list[str],
    ) -> Ticket | Replay | None:
        """Refuse (400 for a bad key, 409), replay, or let the request run holding its key
        (None: run it as if it had no key, because its body is over the size limit)."""
        if len(keys) > 1:
            raise BadRequest(
                f"The {idempotency.HEADER} header was given more than once.",
                param=idempotency.HEADER,
            )
        key = idempotency.check_key(keys[0])
        if _declared_length(scope) > MAX_BODY:
            return None  # the handler answers 413 without reading it
        records = self.store.idempotency
        scope_key = idempotency.scope_of(principal.account_id, principal.environment, key)
        record = records.lookup(scope_key, self.store.clock.now())
        if record is not None and not record.done:
            raise idempotency.in_flight()
        # Claim at once when the key is free, so a retry sent while this body is still
        # arriving is refused as in flight rather than run twice.
        mine = records.begin(scope_key) if record is None else None
        try:
            body, whole = await _read_capped(receive, MAX_BODY)
        except BaseException:
            if mine is not None:
                records.abandon(scope_key, mine)
            raise
        if not whole:  # over the size limit: the handler answers 413, nothing is kept
            if mine is not None:
                records.abandon(scope_key, mine)
            return Ticket(self.store, context, receive, body, None, scope_key)
        account = self.store.accounts.get(principal.account_id)
        region = context.region or (account.default_region if account else "")
        fingerprint, value = idempotency.fingerprint_and_value(
            scope["method"], region, scope["path"], body
        )
        if type(value) is dict:  # what the handler would parse from these very bytes
            context.parsed_body = (body, value)
        if mine is None:  # the key had a kept result: look again, the body took time
            record = records.lookup(scope_key, self.store.clock.now())
            if record is None:
                mine = records.begin(scope_key)
            elif not record.done:
                raise idempotency.in_flight()
            elif record.fingerprint != fingerprint:
                raise idempotency.mismatch()
            else:
                require_scope(principal, record.permission or None)
                return Replay(record.response)
        mine.fingerprint = fingerprint
        return Ticket(self.store, context, receive, body, mine, scope_key)


def _declared_length(scope: Scope) -> int:
    value = first_header(scope, b"content-length")
    return int(value) if value is not None and value.isdigit() else 0


async def _read_capped(receive: Receive, cap: int) -> tuple[bytes, bool]:
    """The request body, or its first bytes and False once it exceeds `cap` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientDisconnect()
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if size > cap:
            return b"".join(chunks), False
        if not message.get("more_body", False):
            return b"".join(chunks), True


def pack_head(status: int, headers: Headers) -> bytes:
    """The head of a response to keep: the status, header lines and a blank line."""
    lines = [b"%d" % status, *[name + b": " + value for name, value in headers]]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def pack_response(head: bytes, chunks: list[bytes]) -> StoredResponse:
    """A response to keep, as one bytes object laid out like HTTP/1.1 (`pack_head`, then the
    body): one allocation of exactly its size, and nothing for the collector to walk (a record
    lives a day of mock time; see kept_bytes and domain.idempotency)."""
    return b"".join((head, *chunks)) if chunks else head


def unpack_response(stored: StoredResponse) -> tuple[int, Headers, bytes]:
    """(status, headers, body) of `pack_response`. A header line is never empty and never
    holds a line break, so the first blank line ends the head, and a name holds no colon."""
    head, _, body = stored.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = [(name, value) for name, _, value in (line.partition(b": ") for line in lines)]
    return int(status), headers, body


class Replay(NamedTuple):
    """A kept response to answer again."""

    response: StoredResponse

    def messages(self, rate_headers: Headers) -> tuple[Message, Message]:
        status, headers, body = unpack_response(self.response)
        start = {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, *rate_headers, REPLAYED],
        }
        return start, {"type": "http.response.body", "body": body}


class Ticket:
    """A request that runs: gives the app its buffered body and keeps what it answers."""

    __slots__ = (
        "_body",
        "_chunks",
        "_head",
        "_receive",
        "_status",
        "context",
        "record",
        "scope_key",
        "store",
    )

    def __init__(
        self,
        store: Store,
        context: RequestContext,
        receive: Receive,
        body: bytes,
        record: Record | None,
        scope_key: idempotency.Scope,
    ) -> None:
        self.store = store
        self.context = context
        self._receive = receive
        self._body: bytes | None = body
        self.record = record
        self.scope_key = scope_key
        self._status = 0
        self._head = b""
        self._chunks: list[bytes] = []

    async def receive(self) -> Message:
        """The buffered body once, then whatever the connection says (a disconnect)."""
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        return await self._receive()

    def started(self, status: int, headers: Headers) -> None:
        """The response begins (its headers include X-Request-Id, not the rate-limit ones)."""
        self._status = status
        if self.record is not None:
            self._head = pack_head(status, headers)

    def body(self, message: Message) -> None:
        """A body chunk; on the last one the response is kept or the key released."""
        if self.record is None:
            return
        self._chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            self.finish()

    def finish(self) -> None:
        record, self.record = self.record, None
        if record is None:
            return
        permission = self.context.operation
        records = self.store.idempotency
        if permission is None:  # no operation ran (an unknown route): keep nothing
            records.abandon(self.scope_key, record)
            return
        record.permission = permission
        response = pack_response(self._head, self._chunks)
        records.complete(self.scope_key, record, self._status, response, self.store.clock.now())

    def close(self) -> None:
        """After the request: release the key if no response was kept."""
        record, self.record = self.record, None
        if record is not None:
            self.store.idempotency.abandon(self.scope_key, record)
