"""The engine's typed request and answer: what an API operation takes and what it gives.

No HTTP here. The web layer turns a request into a `Call` once (its credential checked, its
world and region found, its path parameters, query and body parsed) and turns the `Answer` an
operation returns into a response; an operation that refuses raises an `ApiError`, the typed
error answer, which the web layer renders as the service's envelope.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, final

from mockserver.core.errors import ApiError
from mockserver.domain.auth import Principal, bearer_token, principal_for_key
from mockserver.domain.oauth_state import TOKEN_PREFIX, principal_for_token
from mockserver.domain.store import Store, World
from mockserver.webhooks.delivery import DeliveryEngine

JSON = "application/json"
Headers = list[tuple[bytes, bytes]]  # a response's header lines, names lowercase


@final
class Call:
    """One operation's request: the sandbox's store and webhooks, and, for an authenticated
        operation, the caller, the caller's world and the routed region (None for the
        credential-free ones); its path parameters, query (one value per name, and every pair in
    order), parsed body and the base URL it came to
        (for links the answer carries)."""

    __slots__ = (
        "_base_url",
        "_now",
        "authorization",
        "body",
        "params",
        "principal",
        "query",
        "query_pairs",
        "region",
        "store",
        "webhooks",
        "world",
    )

    def __init__(
        self,
        store: Store,
        webhooks: DeliveryEngine,
        principal: Principal | None,
        world: World | None,
        region: str,
        params: dict[str, str],
        query: dict[str, str],
        query_pairs: list[tuple[str, str]],
        base_url: Callable[[], str],
        authorization: str | None,
    ) -> None:
        self.store = store
        self.webhooks = webhooks
        self.principal = principal
        self.world = world
        self.region = region
        self.params = params
        self.query = query
        self.query_pairs = query_pairs
        self._base_url = base_url
        self.authorization = authorization
        self.body: Any = None  # the parsed body, set once the call is admitted and it is read
        self._now: int | None = None

    def now(self) -> int:
        """The operation's time on the mock clock, taken on the first call: timers due by then
        run first. Operations call it right before the domain operation, after the body was
        read, so an operation never writes with a time read before other requests could run."""
        if self._now is None:
            self.store.scheduler.run_due()
            self._now = self.store.now()
        return self._now

    def base_url(self) -> str:
        """The URL the request came to, up to the API's root, without a trailing slash."""
        return self._base_url()

    def caller(self) -> tuple[Principal, World]:
        """The caller and its world; only authenticated operations call it."""
        assert self.principal is not None
        assert self.world is not None
        return self.principal, self.world


@final
class Answer:
    """An operation's answer: status, body, media type (None: no Content-Type), extra headers
    (None: none), and `kept`: the body is already stored at its size, so the journal may keep it
    without a copy."""

    __slots__ = ("body", "headers", "kept", "media_type", "status")

    def __init__(
        self,
        body: bytes,
        status: int = 200,
        *,
        media_type: str | None = JSON,
        headers: dict[str, str] | None = None,
        kept: bool = False,
    ) -> None:
        self.body = body
        self.status = status
        self.media_type = media_type
        self.headers = headers
        self.kept = kept


class Operation(NamedTuple):
    """One operation of the API: its route, what it needs and what runs it.

    `scope`: the permission it needs ("" for any valid credential; None for an operation that
    takes no bearer credential at all). `body`: "json", "form" or "" (reads none).
    `refusal`: what the operation makes of an error it raises, reading its body included
    (OAuth's error codes and headers); None: the error as raised."""

    method: str
    path: str
    scope: str | None
    body: str
    run: Callable[[Call], Answer]
    refusal: Callable[[ApiError], ApiError] | None = None


def principal_for(store: Store, authorization: str | None) -> Principal:
    """The principal behind an `Authorization` header's bearer credential (an API key or an
    OAuth access token), or 401."""
    token = bearer_token(authorization)
    if token.startswith(TOKEN_PREFIX):
        return principal_for_token(store.oauth, token, store.now())
    return principal_for_key(store.keys, token)
