"""Webhook endpoints: validation, create/list/delete, the event envelope and its signature.

Endpoints belong to an (account, environment), visible through every host; their audit events
go to the account's default region. Each has its own `whsec_` secret, shown once, at creation.
A delivery is `POST url` with the envelope `{id, type, created_at, data}` and the header

    X-Service-Signature: t=<unix seconds of the mock clock>,v1=<hex HMAC-SHA256>

keyed with the whole secret string (`whsec_` included) over `f"{t}.{raw body}"`: the scheme
Stripe's libraries verify, so consumers can use them unchanged.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mockserver.core.clock import format_ts
from mockserver.core.errors import Conflict, NotFound, ValidationError
from mockserver.core.ids import IdFactory
from mockserver.domain import validation as v
from mockserver.domain.store import World
from mockserver.domain.views import dumps_compacted
from mockserver.domain.webhook_rules import (
    ENDPOINTS_MAX,
    EVENT_TYPES,
    EVENTS_MAX,
    SECRET_PREFIX,
    URL_MAX,
    WILDCARD,
    normal_url,
    url_problem,
)
from mockserver.webhooks.deliveries import QUEUE_SIZE, Delivery, EndpointQueue

SIGNATURE_HEADER = "X-Service-Signature"


@dataclass(slots=True)
class WebhookEndpoint:
    id: str
    url: str
    events: tuple[str, ...]
    secret: str
    created_at: int
    status: str = "active"

    def wants(self, event_type: str) -> bool:
        return self.events == (WILDCARD,) or event_type in self.events


class WebhookBook:
    """The endpoints of one (account, environment) and the delivery queue of each."""

    __slots__ = ("account_id", "endpoints", "environment", "ids", "queue_size", "queues")

    def __init__(
        self, account_id: str, environment: str, ids: IdFactory, queue_size: int = QUEUE_SIZE
    ) -> None:
        self.account_id = account_id
        self.environment = environment
        self.ids = ids  # delivery ids: their own stream, so deliveries never shift resource ids
        self.endpoints: dict[str, WebhookEndpoint] = {}  # creation order; deleted ones leave
        self.queues: dict[str, EndpointQueue] = {}
        self.queue_size = queue_size  # deliveries kept per endpoint (see EndpointQueue)

    def queue(self, endpoint_id: str) -> EndpointQueue:
        queue = self.queues.get(endpoint_id)
        if queue is None:
            queue = self.queues[endpoint_id] = EndpointQueue(self.queue_size)
        return queue

    def queued(self, endpoint_id: str) -> list[Delivery]:
        """The deliveries queued for an endpoint, its head (the one attempted) first; reading
        makes no queue. What the inspector reads to say what each one waits for."""
        queue = self.queues.get(endpoint_id)
        return list(queue) if queue is not None else []


def check_url(raw: Any, *, strict: bool) -> str:
    """An https URL, or http to a loopback host unless `strict`, normalised (`normal_url`: the
    host checked is the one a delivery connects to); 422 `param: url` otherwise."""
    url = normal_url(v.string(raw, "url", max_len=URL_MAX))
    problem = url_problem(url, strict=strict)
    if problem is None and len(url) > URL_MAX:
        problem = f"its normalised form is longer than {URL_MAX} characters"
    if problem is None:
        return url
    bad = f"'url' must be an absolute https:// URL (got '{url[:100]}')"
    raise ValidationError(f"{bad}: {problem}." if problem else f"{bad}.", param="url")


def check_events(raw: Any) -> tuple[str, ...]:
    """A non-empty array of known event types (duplicates dropped, order kept), or `["*"]`."""
    items = v.array(raw, "events", min_items=1, max_items=EVENTS_MAX)
    chosen: dict[str, None] = {}
    for i, item in enumerate(items):
        param = f"events[{i}]"
        if not isinstance(item, str):
            raise ValidationError(
                f"'{param}' must be an event type string, not {v.json_type(item)}.", param=param
            )
        if item == WILDCARD and len(items) > 1:
            raise ValidationError(
                f"'{param}': '*' subscribes to every event type and must be the only entry.",
                param=param,
            )
        if item != WILDCARD and item not in EVENT_TYPES:
            raise ValidationError(
                f"'{param}' is not a known event type: '{item[:100]}'. Known types: "
                f"{', '.join(EVENT_TYPES)}; or ['*'] for all of them.",
                param=param,
            )
        chosen[item] = None
    return tuple(chosen)


def endpoint_view(endpoint: WebhookEndpoint) -> dict[str, Any]:
    """An endpoint as the list shows it: never its secret."""
    return {
        "id": endpoint.id,
        "object": "webhook_endpoint",
        "url": endpoint.url,
        "events": list(endpoint.events),
        "status": endpoint.status,
        "created_at": format_ts(endpoint.created_at),
    }


def endpoint_created(endpoint: WebhookEndpoint) -> dict[str, Any]:
    """`POST /v1/webhook_endpoints` answer: the only time the signing secret is shown."""
    view = endpoint_view(endpoint)
    return {
        **{k: view[k] for k in ("id", "object", "url", "events")},
        "signing_secret": endpoint.secret,
        **{k: view[k] for k in ("status", "created_at")},
    }


def create(
    world: World,
    book: WebhookBook,
    body: Mapping[str, Any],
    actor: str,
    now: int,
    *,
    strict: bool,
    new_id: str | None = None,
) -> WebhookEndpoint:
    """A new active endpoint with its own secret; `webhook_endpoint.created` goes to the other
    endpoints (this one starts with the events after its own creation)."""
    url = check_url(v.required(body, "url"), strict=strict)
    events = check_events(v.required(body, "events"))
    if len(book.endpoints) >= ENDPOINTS_MAX:
        raise Conflict(
            f"An account may have at most {ENDPOINTS_MAX} webhook endpoints per environment; "
            "delete one first."
        ).because(
            "state",
            resource="webhook_endpoints",
            current=len(book.endpoints),
            allowed=[f"fewer than {ENDPOINTS_MAX}"],
        )
    if not new_id:
        new_id = world.ids.new("whk_")
        while new_id in book.endpoints:  # a seeded endpoint may hold an id of this stream
            new_id = world.ids.new("whk_")
    endpoint = WebhookEndpoint(
        id=new_id,
        url=url,
        events=events,
        secret=world.ids.new(SECRET_PREFIX, 32),
        created_at=now,
    )
    _record(world, endpoint, "webhook_endpoint.created", actor, now)
    book.endpoints[endpoint.id] = endpoint
    return endpoint


def listing(book: WebhookBook) -> list[WebhookEndpoint]:
    """Newest first, like the other unpaginated lists."""
    return list(reversed(book.endpoints.values()))


def delete(
    world: World, book: WebhookBook, endpoint_id: str, actor: str, now: int
) -> WebhookEndpoint:
    """Remove an endpoint: no new events for it, its queued deliveries are cancelled, an attempt
    in flight completes. 404 for an unknown (or already deleted) one."""
    endpoint = book.endpoints.pop(endpoint_id, None)
    if endpoint is None:
        raise NotFound.resource("webhook endpoint", endpoint_id)
    queue = book.queues.get(endpoint_id)
    if queue is not None:
        queue.cancel()
        if not len(queue):
            del book.queues[endpoint_id]
    _record(world, endpoint, "webhook_endpoint.deleted", actor, now)
    return endpoint


def _record(world: World, endpoint: WebhookEndpoint, type: str, actor: str, at: int) -> None:
    # The audit log and other endpoints get the endpoint without its secret: readers of the
    # audit log (audit:read) must not learn it, and the spec shows it on create only.
    world.record(
        world.account.default_region, type, actor, at, endpoint.id, (), endpoint_view(endpoint)
    )


def envelope(event_id: str, event_type: str, at: int, data: Mapping[str, Any]) -> bytes:
    """The body of every delivery of an event, made once: `{id, type, created_at, data}`."""
    return dumps_compacted(
        {"id": event_id, "type": event_type, "created_at": format_ts(at), "data": data}
    )


def signature(secret: str, t: int, body: bytes) -> str:
    """Lowercase hex HMAC-SHA256, key = the whole secret (UTF-8), message = `<t>.<body>`."""
    return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(secret: str, t: int, body: bytes) -> str:
    """The `X-Service-Signature` value of an attempt at `t` (Unix seconds of the mock clock)."""
    return f"t={t},v1={signature(secret, t, body)}"
