"""The inspector's webhooks view: deliveries grouped by endpoint, read from the delivery engine.

Each endpoint (live ones from the engine's books, deleted ones from the deliveries they left in
the journal) is one group: its URL, state and subscriptions, a count of its deliveries by state,
and its deliveries in the order a reader needs them:

    1. the one being tried (in flight, or failed and waiting for its next retry)
    2. the others that have attempts, newest first (succeeded, failed, cancelled mid-retry)
    3. the queued ones, next in line first, each with what it waits for
    4. the ones that ended without an attempt (cancelled, dropped), newest first

"What it waits for" is the endpoint's queue as the engine holds it (`WebhookBook.queued`): only
the head of a queue is ever attempted, so a queued delivery waits for the head to succeed or to
give up. Nothing here knows Starlette or Jinja2; times are the mock clock's.

`endpoint_groups(..., account_id=...)` keeps one account's endpoints and deliveries, for a page
that watches one account.
"""

from __future__ import annotations

from dataclasses import dataclass

from mockserver.core.clock import format_ts
from mockserver.domain.webhook_rules import WILDCARD
from mockserver.webhooks.deliveries import RETRY_OFFSETS, Delivery
from mockserver.webhooks.delivery import DeliveryEngine
from mockserver.webhooks.endpoints import WebhookBook

MAX_ATTEMPTS = len(RETRY_OFFSETS)  # attempts a delivery gets before it is marked failed
SHOWN = 50  # deliveries listed per endpoint (the summary counts them all)

# A delivery's state as the page names it: the journal's status, with `pending` told apart
# into the one being retried, the one being sent for the first time and the ones queued.
STATES = ("delivered", "retrying", "sending", "queued", "failed", "cancelled", "dropped")
_ENDED = {"succeeded": "delivered", "failed": "failed", "cancelled": "cancelled"}


def state_of(delivery: Delivery) -> str:
    """The page's word for where a delivery stands (one of `STATES`)."""
    if delivery.status != "pending":
        return _ENDED.get(delivery.status, delivery.status)
    if delivery.attempts:
        return "retrying"
    return "sending" if delivery.in_flight else "queued"


@dataclass(frozen=True, slots=True)
class AttemptRow:
    """One attempt of a delivery, numbered from 1."""

    number: int
    at: str
    ok: bool
    status_code: int | None
    error: str | None
    duration_ms: int


@dataclass(frozen=True, slots=True)
class Wait:
    """What a queued delivery waits for. `head_id` is the delivery it waits behind (the one its
    endpoint is trying, of event `head_event_id`), None when it is the head itself; `ahead`
    counts the deliveries queued before it, the head included; `next_at` is the head's next
    attempt, `last_at` the time of the head's last try (24 h after its first) once it has been
    tried."""

    head_id: str | None
    head_event_id: str | None
    head_event_type: str | None
    ahead: int
    head_attempts: int
    head_in_flight: bool
    next_at: str | None
    last_at: str | None


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    """One delivery as the page lists it."""

    id: str
    status: str  # the journal's status, as `/_mock/webhooks/deliveries` shows it
    state: str  # the page's word (`STATES`)
    event_id: str
    event_type: str
    url: str
    created_at: str
    redelivery_of: str | None
    in_flight: bool
    attempts: list[AttemptRow]
    next_attempt_at: str | None  # the next retry of the delivery being tried
    last_attempt_at: str | None  # when it is tried for the last time, if it keeps failing
    wait: Wait | None  # for a queued delivery


@dataclass(frozen=True, slots=True)
class EndpointGroup:
    """One endpoint and its deliveries. `state` is `active`, `disabled` or `deleted` (known
    only from the deliveries it left: then `events` is empty); `counts` covers every delivery
    of the endpoint in the journal, `deliveries` the listed ones (at most `SHOWN`, after any
    status filter) and `hidden` how many more matched."""

    id: str
    account_id: str
    environment: str
    url: str
    state: str
    events: tuple[str, ...]
    counts: tuple[tuple[str, int], ...]
    deliveries: list[DeliveryRow]
    hidden: int

    @property
    def every_event(self) -> bool:
        return self.events == (WILDCARD,)

    @property
    def summary(self) -> str:
        """`3 delivered · 1 retrying · 4 queued`, or that there is none yet."""
        if not self.counts:
            return "no delivery yet"
        return " · ".join(f"{count} {state}" for state, count in self.counts)


Key = tuple[str, str, str]  # (account, environment, endpoint id)


def endpoint_groups(
    engine: DeliveryEngine, status: str | None = None, account_id: str | None = None
) -> list[EndpointGroup]:
    """Every endpoint with its deliveries, live endpoints in the order they were made, then
    deleted ones that left deliveries. `status` (a journal status) keeps only the deliveries in
    it, and the endpoints that have some; `account_id` keeps one account's endpoints."""
    books = [book for book in engine.books.values() if account_id in (None, book.account_id)]
    by_key: dict[Key, list[Delivery]] = {}
    for book in books:
        for endpoint_id in book.endpoints:
            by_key[(book.account_id, book.environment, endpoint_id)] = []
    for delivery in engine.journal.select():
        if account_id in (None, delivery.account_id):
            key = (delivery.account_id, delivery.environment, delivery.endpoint_id)
            by_key.setdefault(key, []).append(delivery)
    book_of = {(book.account_id, book.environment): book for book in books}
    groups = []
    for key, deliveries in by_key.items():
        group = _group(key, book_of.get(key[:2]), deliveries, status)
        if status is None or group.deliveries:
            groups.append(group)
    return groups


def _group(
    key: Key, book: WebhookBook | None, deliveries: list[Delivery], status: str | None
) -> EndpointGroup:
    account, environment, endpoint_id = key
    endpoint = book.endpoints.get(endpoint_id) if book is not None else None
    queued = book.queued(endpoint_id) if book is not None else []
    counts = {state: 0 for state in STATES}
    for delivery in deliveries:
        counts[state_of(delivery)] += 1
    listed = [d for d in _ordered(deliveries, queued) if status in (None, d.status)]
    if endpoint is not None:
        url, state, events = endpoint.url, _endpoint_state(endpoint.status), endpoint.events
    else:
        url, state, events = deliveries[-1].url, "deleted", ()
    return EndpointGroup(
        id=endpoint_id,
        account_id=account,
        environment=environment,
        url=url,
        state=state,
        events=events,
        counts=tuple((state, n) for state, n in counts.items() if n),
        deliveries=[_row(d, queued) for d in listed[:SHOWN]],
        hidden=max(0, len(listed) - SHOWN),
    )


def _endpoint_state(status: str) -> str:
    return "active" if status == "active" else "disabled"


def _ordered(deliveries: list[Delivery], queued: list[Delivery]) -> list[Delivery]:
    """The endpoint's deliveries in the page's order (see the module's docstring)."""
    place = {d.id: index for index, d in enumerate(queued)}
    newest_first = list(reversed(deliveries))
    tried = [d for d in newest_first if d.status == "pending" and (d.attempts or d.in_flight)]
    done = [d for d in newest_first if d.status != "pending" and d.attempts]
    waiting = [d for d in deliveries if d.status == "pending" and not (d.attempts or d.in_flight)]
    waiting.sort(key=lambda d: place.get(d.id, len(place)))  # stable: the rest as journaled
    unattempted = [d for d in newest_first if d.status != "pending" and not d.attempts]
    return tried + done + waiting + unattempted


def _ts(value: int | None) -> str | None:
    return None if value is None else format_ts(value)


def _last_try(delivery: Delivery) -> int | None:
    """When a delivery that has been tried is tried for the last time."""
    if delivery.first_attempt_at is None:
        return None
    return delivery.first_attempt_at + RETRY_OFFSETS[-1]


def _row(delivery: Delivery, queued: list[Delivery]) -> DeliveryRow:
    state = state_of(delivery)
    trying = state in ("retrying", "sending")
    return DeliveryRow(
        id=delivery.id,
        status=delivery.status,
        state=state,
        event_id=delivery.event_id,
        event_type=delivery.event_type,
        url=delivery.url,
        created_at=format_ts(delivery.created_at),
        redelivery_of=delivery.redelivery_of,
        in_flight=delivery.in_flight,
        attempts=[
            AttemptRow(n, format_ts(a.at), a.ok, a.status_code, a.error, a.duration_ms)
            for n, a in enumerate(delivery.attempts, start=1)
        ],
        next_attempt_at=_ts(delivery.next_attempt_at) if trying else None,
        last_attempt_at=_ts(_last_try(delivery)) if state == "retrying" else None,
        wait=_wait(delivery, queued) if state == "queued" else None,
    )


def _wait(delivery: Delivery, queued: list[Delivery]) -> Wait:
    """What a queued delivery waits for, from its endpoint's queue (head first): the head it
    waits behind, or, at the head, its own first attempt."""
    ahead = next((i for i, d in enumerate(queued) if d.id == delivery.id), None)
    if ahead is None or ahead == 0:  # the head (or no longer queued): its own next attempt
        return Wait(None, None, None, 0, 0, False, _ts(delivery.next_attempt_at), None)
    head = queued[0]
    last = _last_try(head) if head.attempts else None
    return Wait(
        head_id=head.id,
        head_event_id=head.event_id,
        head_event_type=head.event_type,
        ahead=ahead,
        head_attempts=len(head.attempts),
        head_in_flight=head.in_flight,
        next_at=_ts(head.next_attempt_at),
        last_at=_ts(last),
    )
