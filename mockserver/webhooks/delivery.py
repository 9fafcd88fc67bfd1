"""The webhook delivery engine: events in, signed HTTP POSTs out, retries on the mock clock.

It listens to every audit event (`Store.listeners`), queues a delivery per subscribed endpoint
and runs each attempt as a scheduler timer whose work is the HTTP request (`sender.py`). A write
only schedules the first attempt "now" and asks the event loop to run due timers once the
handler is done, so the attempt runs in the background and never delays an API response; a
clock move awaits the attempts it makes due (see `scheduler`). Memory is bounded by
`deliveries` (queues, attempts and errors are capped).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mockserver.audit.chain import SYSTEM
from mockserver.audit.log import AuditEvent
from mockserver.core.errors import Conflict, NotFound
from mockserver.core.ids import IdFactory
from mockserver.core.scheduler import Commit, Work
from mockserver.domain.models import EndpointSeed
from mockserver.domain.store import Store, World
from mockserver.webhooks import endpoints as webhooks
from mockserver.webhooks.deliveries import (
    JOURNAL_SIZE,
    QUEUE_SIZE,
    Attempt,
    Delivery,
    EndpointQueue,
    Journal,
    clip_error,
)
from mockserver.webhooks.endpoints import (
    WebhookBook,
    WebhookEndpoint,
    envelope,
    signature_header,
)
from mockserver.webhooks.sender import Sender
from mockserver.webhooks.watch import Watch

if TYPE_CHECKING:
    from mockserver.scenarios.decisions import Fault

# A scenario's webhook faults: (endpoint id, event type, attempt number, account id) -> the
# fault, or None.
FaultHook = Callable[[str, str, int, str], "Fault | None"]
# A durable sandbox's hand on attempt outcomes: given (delivery id, attempt number, the work that
# makes the attempt), it runs the work and logs what it found, or closes it unrun and gives the
# logged outcome (a replay); with the Attempt it returns what to call once that is recorded.
OutcomeHook = Callable[
    [str, int, Coroutine[Any, Any, Attempt]], Awaitable[tuple[Attempt, Callable[[], None]]]
]


class Generation:
    """The identity of the engine's life since its last reset (or restore): work started
    under another one changes nothing. An object, not a counter, so that a restored snapshot's
    generation can never be mistaken for the one of work still in flight."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class AttemptTimer:
    """The timer of a delivery's next attempt: an object rather than a closure, so that a
    snapshot can save it with the delivery."""

    engine: DeliveryEngine
    book: WebhookBook
    delivery: Delivery
    generation: Generation

    def __call__(self, _due: int) -> Work | None:
        return self.engine.attempt(self.book, self.delivery, self.generation)


class DeliveryEngine:
    """Endpoints per (account, environment), their queues, the journal, and the sending."""

    def __init__(
        self,
        store: Store,
        *,
        timeout: float = 10.0,
        strict_urls: bool = False,
        queue_size: int = QUEUE_SIZE,
        journal_size: int = JOURNAL_SIZE,
        faults: FaultHook | None = None,
    ) -> None:
        """`faults`: the scenarios' fault for an attempt (none: no faults)."""
        self.store = store
        self.timeout = timeout
        self.strict_urls = strict_urls
        self.queue_size = queue_size
        self.books: dict[tuple[str, str], WebhookBook] = {}
        self.journal = Journal(journal_size)
        self._generation = Generation()  # new at reset: work of an older one changes nothing
        self.fault_hook = faults
        self.outcome_hook: OutcomeHook | None = None  # set by a durable sandbox
        self.defer_runs = False  # durable: due attempts run where the log puts them, not soon
        self._delayed: set[tuple[str, int]] = set()  # (delivery, attempt) already held back
        self.sender = Sender(timeout)
        self.watches: list[Watch] = []  # metrics and traces of attempts (shared with accounts)
        store.listeners.append(self.publish)
        store.reset_hooks.append(self.reset)
        self._seeded_endpoints()

    def book(self, world: World) -> WebhookBook:
        """The endpoints and queues of a world (made on first use)."""
        return self._book((world.account.id, world.environment))

    def _book(self, key: tuple[str, str]) -> WebhookBook:
        book = self.books.get(key)
        if book is None:
            ids = IdFactory(self.store.random_seed, f"{key[0]}/{key[1]}/webhooks")
            book = self.books[key] = WebhookBook(key[0], key[1], ids, self.queue_size)
        return book

    def _seeded_endpoints(self) -> None:
        """Give each (account, environment) the webhook endpoints its seed lists, their times
        shifted as the store shifts every seeded time."""
        shift = self.store.shift
        for key, seed in self.store.seed.environments.items():
            for hook in seed.webhook_endpoints:
                self._book(key).endpoints[hook.id] = WebhookEndpoint(
                    hook.id, hook.url, hook.events, hook.secret, hook.created_at + shift
                )

    def endpoint_seeds(self) -> dict[tuple[str, str], list[EndpointSeed]]:
        """Every (account, environment)'s endpoints as a seed lists them, oldest first (a
        sandbox exported as a seed, `seeds/export.py`)."""
        return {
            key: [EndpointSeed(e.id, e.url, e.events, e.secret, e.created_at) for e in endpoints]
            for key, book in self.books.items()
            if (endpoints := list(book.endpoints.values()))
        }

    def reset(self) -> None:
        """Forget every endpoint, queue and delivery (the store has dropped the timers); the
        seed's endpoints are back."""
        self._generation = Generation()
        self.books.clear()
        self.journal.clear()
        self._delayed.clear()
        self._seeded_endpoints()

    # -- the event bus -------------------------------------------------------------------

    def publish(self, world: World, event: AuditEvent, data: Mapping[str, Any]) -> None:
        """A store listener: queue the event for every endpoint of the world subscribed to it."""
        book = self.books.get((world.account.id, world.environment))
        if book is None or not book.endpoints:
            return
        targets = [e for e in book.endpoints.values() if e.wants(event.type)]
        if not targets:
            return
        body = envelope(event.id, event.type, event.at, data)
        now = self.store.now()
        for endpoint in targets:
            delivery = Delivery(
                id=book.ids.new("whd_"),
                account_id=book.account_id,
                environment=book.environment,
                endpoint_id=endpoint.id,
                url=endpoint.url,
                event_id=event.id,
                event_type=event.type,
                body=body,
                created_at=now,
            )
            self._enqueue(book, delivery, now)

    def redeliver(self, delivery_id: str) -> Delivery:
        """Queue the same event again (same id, same bytes) for the same endpoint, behind what
        is already queued for it; 404 for an unknown delivery, 409 when the endpoint is gone."""
        original = self.journal.get(delivery_id)
        if original is None:
            raise NotFound.resource("webhook delivery", delivery_id)
        book = self.books.get((original.account_id, original.environment))
        if book is None or original.endpoint_id not in book.endpoints:
            raise Conflict(
                f"Webhook endpoint {original.endpoint_id} has been deleted; "
                "its events cannot be redelivered."
            ).because("state", resource=original.endpoint_id, current="deleted", allowed=["active"])
        endpoint = book.endpoints[original.endpoint_id]
        body, event_id, event_type = original.body, original.event_id, original.event_type
        return self._queue_again(book, endpoint, event_id, event_type, body, original.id)

    def send_again(
        self,
        book: WebhookBook,
        endpoint: WebhookEndpoint,
        event_id: str,
        event_type: str,
        body: bytes,
    ) -> Delivery:
        """Queue an event that already happened (`resend`) for an endpoint of `book`, behind
        what is queued for it; `redelivery_of` names the event's latest delivery to it, if any."""
        earlier = [d.id for d in self.journal.select(endpoint_id=endpoint.id, event_id=event_id)]
        latest = earlier[-1] if earlier else None
        return self._queue_again(book, endpoint, event_id, event_type, body, latest)

    def _queue_again(
        self,
        book: WebhookBook,
        endpoint: WebhookEndpoint,
        event_id: str,
        event_type: str,
        body: bytes,
        redelivery_of: str | None,
    ) -> Delivery:
        """A new delivery of an event's same bytes to `endpoint`, queued behind its others."""
        now = self.store.now()
        delivery = Delivery(
            id=book.ids.new("whd_"),
            account_id=book.account_id,
            environment=book.environment,
            endpoint_id=endpoint.id,
            url=endpoint.url,
            event_id=event_id,
            event_type=event_type,
            body=body,
            created_at=now,
            redelivery_of=redelivery_of,
        )
        self._enqueue(book, delivery, now)
        return delivery

    # -- attempts as timers --------------------------------------------------------------

    def _enqueue(self, book: WebhookBook, delivery: Delivery, now: int) -> None:
        self.journal.add(delivery)
        if book.queue(delivery.endpoint_id).push(delivery):
            self._schedule(book, delivery, now)

    def _schedule(
        self, book: WebhookBook, delivery: Delivery, due: int, *, run_soon: bool = True
    ) -> None:
        generation = self._generation
        delivery.next_attempt_at = due
        # Concurrent: a clock move may make attempts to different endpoints due at the same
        # time together (only the head of an endpoint's queue ever has a timer).
        delivery.timer = self.store.scheduler.at(
            due, AttemptTimer(self, book, delivery, generation), concurrent=True
        )
        if run_soon and due <= self.store.now():
            self._run_soon()

    def _run_soon(self) -> None:
        """Run due timers once the current handler (or timer) is done: a write never runs an
        attempt in the middle of its own change, nor waits for one. A durable sandbox runs them
        itself at the end of each logged input (`defer_runs`)."""
        if self.defer_runs:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: the next request or clock move runs it
            return
        loop.call_soon(self.store.scheduler.run_due)

    def scenario_endpoint(self, world: World, spec: dict[str, Any], now: int) -> None:
        """A scenario's `add_webhook_endpoint`: the real create, with the scenario's id."""
        webhooks.create(
            world,
            self.book(world),
            spec,
            SYSTEM,
            now,
            strict=self.strict_urls,
            new_id=spec.get("id"),
        )

    def _fault(self, delivery: Delivery) -> Fault | None:
        """The scenario fault for the delivery's next attempt (a delay applies once)."""
        if self.fault_hook is None:
            return None
        number = len(delivery.attempts) + 1
        fault = self.fault_hook(
            delivery.endpoint_id, delivery.event_type, number, delivery.account_id
        )
        if fault is not None and fault.kind == "delay":
            if (delivery.id, number) in self._delayed:
                return None
            self._delayed.add((delivery.id, number))
        return fault

    def attempt(self, book: WebhookBook, delivery: Delivery, generation: Generation) -> Work | None:
        """The timer's action: start an attempt of the head of its endpoint's queue."""
        if generation is not self._generation or delivery.status != "pending" or delivery.in_flight:
            return None
        endpoint = book.endpoints.get(delivery.endpoint_id)
        if endpoint is None:  # deleted while this attempt was being cut short (see _send)
            queue = book.queues.pop(delivery.endpoint_id, None)
            if queue is not None:
                queue.cancel()
            delivery.status = "cancelled"
            delivery.next_attempt_at = None
            return None
        queue = book.queue(delivery.endpoint_id)
        at = self.store.now()
        fault = self._fault(delivery)
        if fault is not None and fault.kind == "delay":  # held back, not yet an attempt
            self._schedule(book, delivery, at + fault.delay_seconds, run_soon=False)
            return None
        queue.begin(delivery, at)
        signature = signature_header(endpoint.secret, at, delivery.body)
        return self._send(book, queue, delivery, at, signature, fault)

    async def _deliver(
        self,
        delivery: Delivery,
        signature: str,
        fault: Fault | None,
        headers: list[tuple[str, str]] | None = None,
    ) -> tuple[int | None, str | None]:
        """Send an attempt (with `headers` added), or play the scenario's fault instead of (or
        on top of) it."""
        if fault is None:
            return await self.sender.post(delivery.url, delivery.body, signature, headers)
        injected = f"injected by scenario rule '{fault.rule}'"
        if fault.draw is not None:  # a chaos rule's share, not a rule that always fires
            injected = f"injected by chaos rule '{fault.rule}' (draw {fault.draw:.6f})"
        if fault.kind == "fail":
            return fault.status, f"{injected}: answered {fault.status}, not 2xx"
        if fault.kind == "timeout":
            return None, f"{injected}: timeout, no answer within {self.timeout:g} s"
        result = await self.sender.post(delivery.url, delivery.body, signature, headers)
        if fault.kind == "duplicate":  # the receiver gets the same event (same id) twice
            await self.sender.post(delivery.url, delivery.body, signature, headers)
        return result

    async def _send(
        self,
        book: WebhookBook,
        queue: EndpointQueue,
        delivery: Delivery,
        at: int,
        signature: str,
        fault: Fault | None = None,
    ) -> Commit:
        """The attempt's HTTP; what it found is recorded by the commit it returns (see
        `scheduler`: a clock move commits attempts made together in their timers' order)."""
        generation = self._generation
        done: Callable[[], None] | None = None
        work = self._timed(delivery, at, signature, fault)
        try:
            if self.outcome_hook is None:
                attempt = await work
            else:
                number = len(delivery.attempts) + 1
                attempt, done = await self.outcome_hook(delivery.id, number, work)
        except asyncio.CancelledError:
            # A reset, or the loop shutting down: an attempt cut short is not an attempt. Unless
            # the mock was reset, the delivery is tried again at the next run of due timers.
            delivery.in_flight = False
            if generation is self._generation and delivery.status == "pending":
                self._schedule(book, delivery, self.store.now(), run_soon=False)
            raise

        def commit() -> None:
            try:
                self._record(book, queue, delivery, attempt, generation)
            finally:
                if done is not None:
                    done()

        return commit

    async def _timed(
        self, delivery: Delivery, at: int, signature: str, fault: Fault | None
    ) -> Attempt:
        """The attempt made: what the receiver (or the scenario) answered, and how long the
        receiver took, in real time."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        if not self.watches:
            status, error = await self._deliver(delivery, signature, fault)
        else:
            watching = [watch.attempt(delivery) for watch in self.watches]
            headers = [line for each in watching for line in each.headers]
            status, error = await self._deliver(delivery, signature, fault, headers)
            for each in watching:
                each.done(status, error)
        duration = round((loop.time() - started) * 1000)
        return Attempt(at, status, clip_error(error), duration)

    def _record(
        self,
        book: WebhookBook,
        queue: EndpointQueue,
        delivery: Delivery,
        attempt: Attempt,
        generation: Generation,
    ) -> None:
        """An attempt's outcome: its delivery waits for a retry, or is done and the endpoint's
        next delivery starts. Nothing after a reset (the attempt is forgotten)."""
        if generation is not self._generation:
            return
        alive = delivery.endpoint_id in book.endpoints
        following = queue.finish(delivery, attempt, alive=alive)
        if delivery.status == "pending" and delivery.next_attempt_at is not None:
            self._schedule(book, delivery, delivery.next_attempt_at)
        elif following is not None:
            self._schedule(book, following, self.store.now())
        if not alive and not len(queue) and book.queues.get(delivery.endpoint_id) is queue:
            del book.queues[delivery.endpoint_id]

    def durable_like(self, server: DeliveryEngine) -> None:
        """Log and replay attempts as `server` does (an account's engine on a durable
        server: its attempts' outcomes go to the same log, found by delivery id)."""
        self.outcome_hook = server.outcome_hook
        self.defer_runs = server.defer_runs

    def share_clients(self, server: DeliveryEngine) -> None:
        """Send with the server's HTTP clients (an account's engine): one connection pool,
        closed when the server's lifespan ends."""
        self.sender.share_clients(server.sender)
        self.watches = server.watches

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The app's lifespan: a ticker that runs timers as a real clock (the server's, an
        account's) reaches them, so retries happen without any request; at its end, the serving
        loop's HTTP client (made by the first delivery) is closed."""
        # Also on a frozen clock: accounts with a real clock of their own are ticked with it.
        ticker = asyncio.get_running_loop().create_task(self.store.scheduler.tick_forever())
        try:
            yield
        finally:
            if ticker is not None:
                ticker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticker
            await self.sender.close()
