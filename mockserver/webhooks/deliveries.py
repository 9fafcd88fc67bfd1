"""Webhook deliveries: the retry schedule, one endpoint's ordered queue, and the journal.

A delivery is one event on its way to one endpoint. Deliveries to an endpoint form a queue and
only its head is ever attempted (in flight, or waiting for a retry), so receivers see events in
the order they happened:

    pending --2xx--------------------------------------> succeeded   next queued one starts
       |----failure, a retry left: wait (next_attempt_at)--^
       |----failure at the last retry (24 h)-----------> failed      next queued one starts
       |----endpoint deleted-------------------------> cancelled   (an attempt in flight
       |                                                             completes first)
       \\----`size` newer ones queued behind it--------> dropped     (never the head)

Memory stays bounded whatever the receivers do: a queue keeps at most `QUEUE_SIZE` deliveries
(the oldest waiting one is dropped for a new one), a delivery at most `len(RETRY_OFFSETS)`
attempts, an attempt's error at most `ERROR_MAX` characters, and the journal the latest
`JOURNAL_SIZE` finished deliveries beside the pending ones.

Nothing here sends anything or reads a clock: `mockserver.webhooks.delivery` does both and calls
these transitions with the times it read. The schedule is a pure function so the docs can
print it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mockserver.core.clock import LAST_SECOND, format_ts
from mockserver.core.scheduler import Timer

RETRY_FIRST = 60  # seconds from the first failure to the first retry
RETRY_CAP = 3600  # longest wait between two attempts
RETRY_WINDOW = 86400  # no attempt later than this after the first one
JOURNAL_SIZE = 10_000  # finished deliveries kept for /_mock/webhooks/deliveries
EVICTION_LOOKS = 4  # journal entries examined per add when it is over size
QUEUE_SIZE = 1_000  # deliveries queued per endpoint, its head included
ERROR_MAX = 300  # characters of an attempt's error kept (a receiver's words may be in it)
DELIVERY_STATUSES = ("pending", "succeeded", "failed", "cancelled", "dropped")


def retry_offsets(
    first: int = RETRY_FIRST, cap: int = RETRY_CAP, window: int = RETRY_WINDOW
) -> tuple[int, ...]:
    """Seconds from the first attempt to each attempt: 0, then waits of `first` seconds doubling
    up to `cap`, while within `window`; the last retry is pulled in to exactly `window`, so a
    delivery is tried for the whole 24 h and given up right at its end."""
    offsets = [0]
    wait = first
    while offsets[-1] + wait < window:
        offsets.append(offsets[-1] + wait)
        wait = min(wait * 2, cap)
    offsets.append(window)
    return tuple(offsets)


RETRY_OFFSETS = retry_offsets()


@dataclass(frozen=True, slots=True)
class Attempt:
    """One POST to the receiver: when (mock clock), and its status code or why it failed."""

    at: int
    status_code: int | None
    error: str | None
    duration_ms: int  # real time the receiver took: the mock clock may stand still

    @property
    def ok(self) -> bool:
        return self.error is None


def clip_error(error: str | None) -> str | None:
    """An attempt's error, cut to `ERROR_MAX` characters."""
    if error is None or len(error) <= ERROR_MAX:
        return error
    return error[: ERROR_MAX - 3] + "..."


@dataclass(eq=False, slots=True)
class Delivery:
    """One event for one endpoint. `body` is the exact bytes sent on every attempt."""

    id: str
    account_id: str
    environment: str
    endpoint_id: str
    url: str
    event_id: str
    event_type: str
    body: bytes
    created_at: int
    redelivery_of: str | None = None
    status: str = "pending"
    attempts: list[Attempt] = field(default_factory=list)
    first_attempt_at: int | None = None
    next_attempt_at: int | None = None
    in_flight: bool = False
    timer: Timer | None = None  # the scheduled next attempt, cancelled with the delivery


class EndpointQueue:
    """The deliveries of one endpoint, oldest first; only the head is ever attempted. At most
    `size` are kept: past it the oldest one waiting behind the head is dropped, so a receiver
    that never answers costs a bounded amount of memory however many events follow."""

    __slots__ = ("_items", "_size")

    def __init__(self, size: int = QUEUE_SIZE) -> None:
        self._items: deque[Delivery] = deque()
        self._size = max(2, size)  # the head and at least the newest event

    def __len__(self) -> int:
        return len(self._items)

    def saved(self) -> tuple[deque[Delivery], int]:
        """(the deliveries, the size): what a snapshot keeps."""
        return self._items, self._size

    @classmethod
    def restored(cls, items: deque[Delivery], size: int) -> EndpointQueue:
        """The queue `saved` described."""
        queue = cls(size)
        queue._items = items
        return queue

    def __iter__(self) -> Iterator[Delivery]:
        return iter(self._items)

    def push(self, delivery: Delivery) -> bool:
        """Queue a delivery; True when it is the head and should be attempted now. Over
        `size`, the oldest delivery waiting behind the head becomes `dropped`."""
        self._items.append(delivery)
        if len(self._items) > self._size:
            dropped = self._items[1]
            del self._items[1]
            dropped.status = "dropped"
            dropped.next_attempt_at = None
        return len(self._items) == 1

    def begin(self, delivery: Delivery, at: int) -> None:
        """An attempt of the head starts at `at`."""
        delivery.in_flight = True
        delivery.next_attempt_at = None
        delivery.timer = None
        if delivery.first_attempt_at is None:
            delivery.first_attempt_at = at

    def finish(self, delivery: Delivery, attempt: Attempt, *, alive: bool) -> Delivery | None:
        """Record the head's attempt and decide what follows. The delivery either waits for its
        next retry (`next_attempt_at`), or is done and the next queued delivery, returned,
        starts now. An attempt to a deleted endpoint (`alive` false) ends it either way."""
        delivery.in_flight = False
        delivery.attempts.append(attempt)
        if attempt.ok:
            delivery.status = "succeeded"
        elif not alive:
            delivery.status = "cancelled"
        else:
            tries = len(delivery.attempts)
            assert delivery.first_attempt_at is not None
            if tries < len(RETRY_OFFSETS):
                due = delivery.first_attempt_at + RETRY_OFFSETS[tries]
                delivery.next_attempt_at = max(due, attempt.at)
                return None
            delivery.status = "failed"
        if self._items and self._items[0] is delivery:
            self._items.popleft()
        return self._items[0] if self._items and alive else None

    def cancel(self) -> list[Delivery]:
        """The endpoint was deleted: every delivery not in flight is cancelled and its timer
        dropped; an attempt in flight stays to complete. The cancelled ones are returned."""
        cancelled = []
        for delivery in list(self._items):
            if delivery.in_flight:
                continue
            delivery.status = "cancelled"
            delivery.next_attempt_at = None
            if delivery.timer is not None:
                delivery.timer.cancel()
                delivery.timer = None
            self._items.remove(delivery)
            cancelled.append(delivery)
        return cancelled


class Journal:
    """Every delivery, oldest first, for the control plane. It keeps at most `size` finished
    ones (pending deliveries are always kept), so memory stays bounded under load."""

    __slots__ = ("_by_id", "_candidates", "_size")

    def __init__(self, size: int = JOURNAL_SIZE) -> None:
        self._size = size
        self._by_id: dict[str, Delivery] = {}  # listing order
        self._candidates: deque[Delivery] = deque()  # eviction order: pending ones go round

    def __len__(self) -> int:
        return len(self._by_id)

    def saved(self) -> tuple[dict[str, Delivery], deque[Delivery], int]:
        """(deliveries by id, eviction order, size): what a snapshot keeps."""
        return self._by_id, self._candidates, self._size

    @classmethod
    def restored(
        cls, by_id: dict[str, Delivery], candidates: deque[Delivery], size: int
    ) -> Journal:
        """The journal `saved` described."""
        journal = cls(size)
        journal._by_id, journal._candidates = by_id, candidates
        return journal

    def add(self, delivery: Delivery) -> None:
        """Keep a delivery; drop the oldest finished ones over `size`, looking at a few
        entries per call, so an add costs the same when thousands are pending."""
        self._by_id[delivery.id] = delivery
        self._candidates.append(delivery)
        looked = 0
        while len(self._by_id) > self._size and looked < EVICTION_LOOKS:
            oldest = self._candidates.popleft()
            looked += 1
            if oldest.status == "pending":
                self._candidates.append(oldest)
            else:
                del self._by_id[oldest.id]

    def get(self, delivery_id: str) -> Delivery | None:
        return self._by_id.get(delivery_id)

    def select(
        self,
        *,
        endpoint_id: str | None = None,
        event_id: str | None = None,
        event_type: str | None = None,
        status: str | None = None,
    ) -> Iterable[Delivery]:
        for delivery in list(self._by_id.values()):  # a snapshot: attempts may add meanwhile
            if (
                (endpoint_id is None or delivery.endpoint_id == endpoint_id)
                and (event_id is None or delivery.event_id == event_id)
                and (event_type is None or delivery.event_type == event_type)
                and (status is None or delivery.status == status)
            ):
                yield delivery

    def clear(self) -> None:
        self._by_id.clear()
        self._candidates.clear()


def _ts(value: int | None) -> str | None:
    """A due time as shown: one past the year 9999 (a retry due after the clock's last second)
    shows as that second, which the clock never passes."""
    return None if value is None else format_ts(min(value, LAST_SECOND))


def delivery_view(delivery: Delivery) -> dict[str, Any]:
    """A delivery as `GET /_mock/webhooks/deliveries` shows it."""
    return {
        "id": delivery.id,
        "object": "webhook_delivery",
        "account_id": delivery.account_id,
        "environment": delivery.environment,
        "endpoint_id": delivery.endpoint_id,
        "url": delivery.url,
        "event_id": delivery.event_id,
        "event_type": delivery.event_type,
        "redelivery_of": delivery.redelivery_of,
        "status": delivery.status,
        "created_at": format_ts(delivery.created_at),
        "in_flight": delivery.in_flight,
        "next_attempt_at": _ts(delivery.next_attempt_at),
        "attempts": [
            {
                "at": format_ts(a.at),
                "status_code": a.status_code,
                "error": a.error,
                "duration_ms": a.duration_ms,
            }
            for a in delivery.attempts
        ],
    }
