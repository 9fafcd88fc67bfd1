"""Sending an event again: `POST /_mock/events/{evt_id}/resend` and `mockserver events resend`.

A resend is a new delivery of an event that already happened, through the delivery engine like
any other: queued behind what its endpoint already has, signed at its attempt's time (so the
signature header is a fresh one), retried on the mock clock. The body is the one the event was
delivered with (the same bytes); an event that was never delivered, because no endpoint was
subscribed when it happened, gets its envelope built from the audit log's copy of its data
(the same JSON, with the audit log's sorted keys).

Events written since the server started (or was last reset) can be resent; the seeded audit
history is the past of the seed, never delivered, and is not looked at.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from mockserver.audit.chain import AuditChain
from mockserver.core.errors import Conflict, NotFound
from mockserver.domain.store import Store
from mockserver.webhooks.deliveries import Delivery
from mockserver.webhooks.delivery import DeliveryEngine
from mockserver.webhooks.endpoints import envelope


@dataclass(frozen=True, slots=True)
class SentEvent:
    """An event as deliveries carry it, and where it belongs."""

    account_id: str
    environment: str
    id: str
    type: str
    body: bytes


def find_event(store: Store, engine: DeliveryEngine, event_id: str) -> SentEvent:
    """The event with this id: its delivered body from the deliveries journal, else its
    envelope built from the audit log of the world that wrote it; 404 when neither has it."""
    for delivery in engine.journal.select(event_id=event_id):
        return SentEvent(
            delivery.account_id,
            delivery.environment,
            delivery.event_id,
            delivery.event_type,
            delivery.body,
        )
    for (account_id, environment), world in list(store.worlds.items()):
        for region in world.regions.values():
            found = _written(region.audit, event_id)
            if found is not None:
                return SentEvent(account_id, environment, event_id, *found)
    raise NotFound(
        f"No event '{event_id[:64]}' written since the server started or was last reset.",
        param="evt_id",
        explain={"check": "not_found", "resource": event_id},
    )


def _written(chain: AuditChain, event_id: str) -> tuple[str, bytes] | None:
    """(type, delivery body) of an event written to `chain` since the seed, or None."""
    for event in chain.tail:
        if event.id == event_id:
            data = orjson.loads(event.raw)["data"]
            return event.type, envelope(event.id, event.type, event.at, data)
    return None


def resend(
    store: Store, engine: DeliveryEngine, event_id: str, endpoint_id: str | None = None
) -> list[Delivery]:
    """Queue the event again for one endpoint of its account and environment, or for every
    endpoint subscribed to its type; the new deliveries. 404 `param: endpoint_id` for an
    endpoint the event's account does not have, 409 when no endpoint is subscribed."""
    event = find_event(store, engine, event_id)
    book = engine.books.get((event.account_id, event.environment))
    endpoints = list(book.endpoints.values()) if book is not None else []
    if endpoint_id is not None:
        chosen = [e for e in endpoints if e.id == endpoint_id]
        if not chosen:
            raise NotFound(
                f"No webhook endpoint '{endpoint_id[:64]}' in {event.account_id}/"
                f"{event.environment}, the account and environment of event {event.id}.",
                param="endpoint_id",
                explain={"check": "not_found", "resource": endpoint_id},
            )
    else:
        chosen = [e for e in endpoints if e.wants(event.type)]
        if not chosen:
            raise Conflict(
                f"No webhook endpoint of {event.account_id}/{event.environment} is subscribed "
                f"to {event.type}; register one, or name one with endpoint_id."
            ).because("state", resource=event.id, current="no subscribed endpoint")
    assert book is not None
    return [
        engine.send_again(book, endpoint, event.id, event.type, event.body) for endpoint in chosen
    ]
