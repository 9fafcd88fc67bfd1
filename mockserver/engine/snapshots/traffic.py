"""What requests leave behind, in a snapshot: idempotency records (the answers a replay gives),
the request journal, webhook endpoints with their queues, deliveries and attempts, and each
credential's rate window."""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Any

from mockserver.core.containers import DictOf, Later, ListOf, Opt, Tuple
from mockserver.core.kinds import Bool, Bytes, Int, Invalid, Json, Kind, Reader, Str, Writer
from mockserver.domain.idempotency import Record, check_stored
from mockserver.engine.journal import Entry
from mockserver.engine.snapshots.kinds import SPECS, Rec
from mockserver.engine.snapshots.records import (
    COUNT,
    DUE,
    DUE_SECOND,
    ENVIRONMENT,
    MOMENT,
    SECONDS,
    STREAM,
    STRINGS,
    TEXT,
    TIME,
    Spec,
    record,
)
from mockserver.webhooks.deliveries import Attempt, Delivery, EndpointQueue, Journal
from mockserver.webhooks.delivery import Generation
from mockserver.webhooks.endpoints import WebhookBook, WebhookEndpoint

# -- idempotency records -------------------------------------------------------------------


def _record(into: Reader, values: dict[str, Any]) -> Record:
    made = Record(values["scope"], generation=values["generation"])
    made.fingerprint = values["fingerprint"]
    made.permission = values["permission"]
    made.response = values["response"]
    made.expires_at = values["expires_at"]
    made.done = values["done"]
    made.summary = values["summary"]
    if made.done and made.response is None:
        raise Invalid("a completed record keeps a response")
    if made.response is not None:
        problem = check_stored(made.response)
        if problem is not None:
            error = Invalid(f"its stored answer {problem}")
            error.path.append("response")
            raise error
    return made


record(
    Spec(
        Record,
        {
            "scope": TEXT,
            "fingerprint": Opt(Bytes()),
            "permission": Opt(TEXT),
            "response": Opt(Bytes()),
            "expires_at": DUE,
            "generation": COUNT,
            "done": Bool(),
            "summary": Bytes(),
        },
        shared=True,
        make=_record,
        get=lambda r: {name: getattr(r, name) for name in SPECS["Record"].fields},
    )
)

# -- the request journal -------------------------------------------------------------------


class Headers(Kind):
    """Header lines, `[[name, value], ...]`, each part as `Bytes` (text nearly always: the
    plain case is read without a kind per part, as a request's headers are many)."""

    _pair = Tuple(Bytes(), Bytes())

    def encode(self, value: Any, out: Writer) -> Any:
        return [self._pair.encode(pair, out) for pair in value]

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not list:
            raise Invalid("must be a list of [name, value] pairs")
        made = []
        for index, pair in enumerate(data):
            if type(pair) is list and len(pair) == 2:
                name, value = pair
                if type(name) is str and type(value) is str:
                    made.append(
                        (
                            name.encode("utf-8", "surrogatepass"),
                            value.encode("utf-8", "surrogatepass"),
                        )
                    )
                    continue
            try:
                made.append(self._pair.decode(pair, into))
            except Invalid as error:
                error.path.append(index)
                raise
        return tuple(made)

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": self._pair.schema()}


HEADERS = Headers()
# (reason, message, param, status, path); status 0: a transport fault left no answer to send
REFUSAL = Opt(Tuple(Opt(DictOf(TEXT, Json())), TEXT, Opt(TEXT), Int(0, 599), TEXT))
_ENTRY_LATER = (
    "request_body",
    "request_size",
    "status",
    "response_headers",
    "response_body",
    "response_size",
    "duration",
    "rule",
    "explain",
    "account",
    "fault",
    "committed",
    "chaos",
)


def _entry(into: Reader, values: dict[str, Any]) -> Entry:
    entry = Entry(
        values["seq"],
        values["at"],
        values["method"],
        values["path"],
        values["query"],
        values["request_headers"],
    )
    for name in _ENTRY_LATER:
        setattr(entry, name, values[name])
    return entry


record(
    Spec(
        Entry,
        {
            "seq": Int(1),
            "at": MOMENT,
            "method": TEXT,
            "path": TEXT,
            "query": TEXT,
            "request_headers": HEADERS,
            "request_body": Bytes(),
            "request_size": COUNT,
            "status": Opt(Int(100, 599)),
            "response_headers": HEADERS,
            "response_body": Bytes(),
            "response_size": COUNT,
            "duration": SECONDS,
            "rule": Opt(TEXT),
            "explain": REFUSAL,
            "account": Opt(TEXT),
            "fault": Opt(TEXT),
            "committed": Opt(Bool()),
            "chaos": Opt(DictOf(TEXT, Json())),
        },
        make=_entry,
    )
)

# -- webhooks ------------------------------------------------------------------------------

record(
    Spec(
        WebhookEndpoint,
        {
            "id": TEXT,
            "url": TEXT,
            "events": STRINGS,
            "secret": TEXT,
            "created_at": TIME,
            "status": Str(("active", "disabled")),
        },
    )
)
record(
    Spec(
        Attempt,
        {
            "at": TIME,
            "status_code": Opt(Int(100, 599)),
            "error": Opt(TEXT),
            "duration_ms": COUNT,
        },
    )
)
DELIVERY_STATUSES = ("pending", "succeeded", "failed", "cancelled", "dropped")
record(
    Spec(
        Delivery,
        {
            "id": TEXT,
            "account_id": TEXT,
            "environment": ENVIRONMENT,
            "endpoint_id": TEXT,
            "url": TEXT,
            "event_id": TEXT,
            "event_type": TEXT,
            "body": Bytes(),
            "created_at": TIME,
            "redelivery_of": Opt(TEXT),
            "status": Str(DELIVERY_STATUSES),
            "attempts": ListOf(Rec("Attempt")),
            "first_attempt_at": Opt(TIME),
            "next_attempt_at": Opt(DUE_SECOND),
            "in_flight": Bool(),
            "timer": Later(Opt(Rec("Timer"))),
        },
        shared=True,
    )
)


def _queue(into: Reader, values: dict[str, Any]) -> EndpointQueue:
    return EndpointQueue.restored(values["items"], values["size"])


record(
    Spec(
        EndpointQueue,
        {"items": ListOf(Rec("Delivery"), deque), "size": Int(2)},
        make=_queue,
        get=lambda queue: dict(zip(("items", "size"), queue.saved(), strict=True)),
    )
)


def _book(into: Reader, values: dict[str, Any]) -> WebhookBook:
    book = WebhookBook(
        values["account_id"], values["environment"], values["ids"], values["queue_size"]
    )
    book.endpoints = values["endpoints"]
    book.queues = values["queues"]
    return book


record(
    Spec(
        WebhookBook,
        {
            "account_id": TEXT,
            "environment": ENVIRONMENT,
            "ids": STREAM,
            "queue_size": Int(2),
            "endpoints": DictOf(TEXT, Rec("WebhookEndpoint")),
            "queues": DictOf(TEXT, Rec("EndpointQueue")),
        },
        shared=True,
        make=_book,
    )
)


def _journal(into: Reader, values: dict[str, Any]) -> Journal:
    return Journal.restored(values["by_id"], values["candidates"], values["size"])


record(
    Spec(
        Journal,
        {
            "by_id": DictOf(TEXT, Rec("Delivery")),
            "candidates": ListOf(Rec("Delivery"), deque),
            "size": Int(1),
        },
        tag="DeliveryJournal",
        make=_journal,
        get=lambda journal: dict(
            zip(("by_id", "candidates", "size"), journal.saved(), strict=True)
        ),
    )
)
record(Spec(Generation, {}, shared=True, make=lambda into, values: Generation()))

# -- collections used by the top-level state -----------------------------------------------

WINDOW = ListOf(MOMENT, deque)
WINDOWS = DictOf(TEXT, WINDOW)
ANONYMOUS = DictOf(TEXT, WINDOW, OrderedDict)
