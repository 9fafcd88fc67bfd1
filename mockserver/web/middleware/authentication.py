"""Who is calling, in two steps of the stack.

`AccountSandbox` (before the journal): the sandbox that answers a request is the account
sandbox holding its bearer key (or, for a pre-signed export download, the export), else the
server's (`engine/accounts/sandboxes.py`); `/_mock` requests are the server's. The choice is
`scope["state"]["sandbox"]`: every step below takes it from there, so an account's request runs
on its own store, clock, id streams, scenarios and share of the journal.

`Authentication` (after the journal opened the entry). A `/_mock` request has no caller and no
rate limit: with no admin token, one a web page could send (a foreign `Origin`, a `Host` that is
not loopback, `Sec-Fetch-Site: cross-site`: `engine/control_plane/origin_guard.py`) is 403
before anything reads it, and every answer to an inspector URL (`/_mock/ui`) forbids framing;
the admin token itself is checked by the control plane's routes. For an API request: two
`Authorization` headers are 401, counted in no window (its headers show the client address's
window as it stands); the credential is resolved once (the caller, on the request's
state; an API key's caller is remembered while its key is unchanged); the request counts in
its rate-limit window (429 past it, or in a scenario's forced burst); then the query string's
form (400) and the routed region (a `/us/v1` or `/eu/v1` prefix, a regional `Host`, or the
caller's default; 404 when host and path disagree). The window's headers go on the
request's state, and every answer after that carries them right after its `X-Request-Id`.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.core.errors import ApiError, BadRequest
from mockserver.domain.auth import Principal, credential_headers
from mockserver.domain.models import ApiKey
from mockserver.domain.ratelimit import forced_refusal
from mockserver.engine.control_plane.origin_guard import unframeable
from mockserver.engine.journal import RequestState
from mockserver.engine.request import CONTROL_PLANE, INSPECTOR, asgi_header_lines, routed_region
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import call_editing
from mockserver.web.middleware.errors import refuse

# Routes that take no bearer credential: always limited by client address.
_OAUTH: Final = "/v1/oauth/"
_OPENAPI: Final = "/v1/openapi.json"
_EXPORTS: Final = "/v1/audit_logs/export/"  # a download: an export's path ending so
_DOWNLOAD: Final = "/download"
_NOT_IDEMPOTENT = "/v1/oauth/"  # the token endpoint reads a form, not JSON: keys are ignored
PRINCIPALS_REMEMBERED = 1024  # distinct Authorization values whose caller is remembered
MAX_QUERY = 8 * 1024  # bytes of the raw query string
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


class AccountSandbox:
    """Puts the sandbox that answers a request into its scope's state."""

    def __init__(self, app: ASGIApp, sandbox: SandboxState) -> None:
        self.app = app
        self.sandbox = sandbox

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sandbox = self.sandbox
            path: str = scope["path"]
            tenants = sandbox.tenants
            if tenants is not None and tenants.by_id and not path.startswith(CONTROL_PLANE):
                headers = asgi_header_lines(scope.get("headers") or [])
                sandbox = tenants.owner(headers, path) or sandbox
            scope.setdefault("state", {})["sandbox"] = sandbox
        await self.app(scope, receive, send)


class Authentication:
    """Guards the control plane; resolves an API request's caller and counts it; checks the
    query and routes the request to its region."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]
        sandbox: SandboxState = scope["state"]["sandbox"]
        path = state.path
        if path == INSPECTOR or path.startswith(f"{INSPECTOR}/"):
            await call_editing(self._guarded, scope, receive, send, unframeable)
            return
        if path.startswith(CONTROL_PLANE):
            await self._guarded(scope, receive, send)
            return
        request = state.request
        client = request.client[0] if request.client else ""
        limits = sandbox.store.rate_limits
        try:
            authorization, keys = credential_headers(request.headers)
        except ApiError as error:  # two headers: 401, counted in no window
            state.rate_headers = limits.standing(client, state.arrived)
            await refuse(sandbox, state, error, send)
            return
        try:
            state.authorization = authorization
            principal = None
            if authorization is not None and not _credential_free(path):
                principal = _principal(sandbox, authorization)
            state.principal = principal
            scenarios = sandbox.scenarios
            if principal is not None and scenarios.bursts:
                forced = scenarios.forced_rate_limit(principal.credential, request.method, path)
                if forced is not None:  # a scenario's burst: the window counts as full
                    state.rule = forced.rule
                    state.scenario = forced.touched
                    raise forced_refusal(
                        principal, forced.reset_at, forced.retry_after, forced.rule, forced.scenario
                    )
            rate_headers = limits.admit(principal, client, state.arrived)
        except Exception as error:
            await refuse(sandbox, state, error, send)
            return
        state.rate_headers = rate_headers  # every answer from here on carries them
        if keys and request.method == "POST" and not path.startswith(_NOT_IDEMPOTENT):
            state.idempotency_keys = keys
        await self._routed(scope, receive, send, state, sandbox)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A control-plane request: refused when the sandbox's guard says so, else its query
        and region checked, and passed on."""
        sandbox: SandboxState = scope["state"]["sandbox"]
        state: RequestState = scope["state"]["request"]
        guard = sandbox.control_guard
        if guard is not None:
            try:
                guard(state.request)
            except Exception as error:
                await refuse(sandbox, state, error, send)
                return
        await self._routed(scope, receive, send, state, sandbox)

    async def _routed(
        self, scope: Scope, receive: Receive, send: Send, state: RequestState, sandbox: SandboxState
    ) -> None:
        """Check the query string and route the request to its region, then pass it on."""
        request = state.request
        try:
            check_query(request.query)
            state.region = routed_region(
                request.headers, request.method, state.path, state.path_region
            )
        except Exception as error:
            await refuse(sandbox, state, error, send)
            return
        await self.app(scope, receive, send)


def _credential_free(path: str) -> bool:
    return path.startswith((_OAUTH, _OPENAPI)) or (
        path.startswith(_EXPORTS) and path.endswith(_DOWNLOAD)
    )


def _principal(sandbox: SandboxState, authorization: bytes) -> Principal | None:
    """The caller behind an Authorization header, or None (the operation answers 401; the
    address is limited meanwhile). An API key's caller is remembered, and used again while the
    store holds the same key object, unrevoked and unchanged."""
    keys = sandbox.store.keys
    remembered = sandbox.principals
    known = remembered.get(authorization)
    if known is not None:
        key, principal = known
        if keys.get(key.key) is key and _describes(principal, key):
            return principal
    try:
        principal = sandbox.store.principal_for(authorization.decode("latin-1"))
    except ApiError:
        return None
    found = keys.get(principal.credential)
    if found is not None and _describes(principal, found):  # an API key, not OAuth
        if len(remembered) >= PRINCIPALS_REMEMBERED:
            remembered.clear()
        remembered[authorization] = (found, principal)
    return principal


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


def check_query(query: bytes) -> None:
    """400 for a query string over `MAX_QUERY` bytes, with raw non-ASCII bytes, with a `%`
    not followed by two hex digits, or whose percent-decoded bytes are not UTF-8."""
    if not query:
        return
    if len(query) > MAX_QUERY:
        raise BadRequest(f"The query string exceeds the limit of {MAX_QUERY} bytes.")
    try:
        text = query.decode("ascii")
    except UnicodeDecodeError:
        raise BadRequest(
            "The query string must be ASCII; percent-encode other characters."
        ) from None
    if "%" in text:
        bad = _BAD_ESCAPE.search(query)
        if bad is not None:
            raise BadRequest(
                f"Invalid percent-encoding in the query string at position {bad.start()}."
            )
        try:
            unquote_to_bytes(query).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("The query string's percent-encoded bytes are not UTF-8.") from None
