"""Every record a snapshot file may hold: its tag, its fields and how it is built.

This table is the allow-list. A record is read from fields checked by their kinds and built by
calling its own class with them (or, for the few classes whose state is not their
constructor's arguments, by a documented `restored` path of that class); no other class can be
named by a file. `Spec` checks at import that a dataclass's fields are exactly the ones listed
(less its caches), so a model that gains a field cannot silently drop out of snapshots.
"""

from __future__ import annotations

import dataclasses
import random
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from typing import Any

from mockserver.audit.event import AuditEvent
from mockserver.core.clock import _FIRST_SECOND, _LAST_SECOND
from mockserver.core.ids import IdFactory
from mockserver.core.scheduler import Timer
from mockserver.domain.audit_exports import Completion
from mockserver.domain.documents import LockTimer
from mockserver.domain.idempotency import Record
from mockserver.domain.models import (
    DECISIONS,
    DOCUMENT_STATUSES,
    ENVIRONMENTS,
    REGIONS,
    WORKFLOW_STATUSES,
    Account,
    ApiKey,
    Document,
    DocumentVersion,
    ExportJob,
    Member,
    OAuthClient,
    User,
    Vault,
    Workflow,
    WorkflowStep,
)
from mockserver.domain.oauth import AccessToken, AuthorizationCode
from mockserver.engine.journal import Entry
from mockserver.engine.snapshots.kinds import (
    SPECS,
    Bool,
    Bytes,
    DictOf,
    Int,
    Invalid,
    Json,
    Kind,
    Later,
    ListOf,
    Num,
    Opt,
    Reader,
    Rec,
    Str,
    Tuple,
    Writer,
)
from mockserver.engine.snapshots.scenarios import SCENARIO
from mockserver.scenarios.engine import Loaded, TimelineTimer
from mockserver.webhooks.deliveries import Attempt, Delivery, EndpointQueue, Journal
from mockserver.webhooks.delivery import AttemptTimer, Generation
from mockserver.webhooks.endpoints import WebhookBook, WebhookEndpoint

Make = Callable[[Reader, dict[str, Any]], Any]
Get = Callable[[Any], dict[str, Any]]

TIME = Int(_FIRST_SECOND, _LAST_SECOND)  # Unix seconds a timestamp can show
SECONDS = Num()  # a time or a duration with a fraction
COUNT = Int()
TEXT = Str()
REGION = Str(REGIONS)
ENVIRONMENT = Str(ENVIRONMENTS)
STRINGS = ListOf(TEXT, tuple)
STRING_SET = ListOf(TEXT, frozenset, ordered=True)


class Spec:
    """One record: `fields` (JSON name -> kind) read in order, `make` builds the object from
    them (default: the class called with them), `get` reads them off an object (default:
    attributes of the same names). `later`: fields read once the whole file is (`Later`)."""

    def __init__(
        self,
        cls: type,
        fields: dict[str, Kind],
        *,
        tag: str | None = None,
        shared: bool = False,
        make: Make | None = None,
        get: Get | None = None,
        skip: Iterable[str] = (),
    ) -> None:
        self.cls = cls
        self.tag = tag or cls.__name__
        self.fields = fields
        self.shared = shared
        self._make = make
        self._get = get
        self.later = tuple(name for name, kind in fields.items() if isinstance(kind, Later))
        self._keys = frozenset({"$", *fields, *(("$id",) if shared else ())})
        self._decoders = tuple((name, kind.decode) for name, kind in fields.items())
        if dataclasses.is_dataclass(cls) and make is None:
            names = {f.name for f in dataclasses.fields(cls)} - set(skip)
            assert names == set(fields), f"{cls.__name__}: {sorted(names ^ set(fields))}"

    def write(self, obj: Any, out: Writer) -> dict[str, Any]:
        values = self._get(obj) if self._get is not None else None
        data: dict[str, Any] = {"$": self.tag}
        for name, kind in self.fields.items():
            value = values[name] if values is not None else getattr(obj, name)
            data[name] = kind.encode(value, out)
        return data

    def read(self, data: dict[str, Any], into: Reader) -> Any:
        if data.keys() != self._keys:
            missing = sorted(self._keys - data.keys() - {"$id"})
            if missing:
                raise Invalid(f"lacks the field '{missing[0]}'")
            extra = sorted(data.keys() - self._keys)
            raise Invalid(f"has a field a {self.tag} does not have: '{extra[0]}'")
        values: dict[str, Any] = {}
        name = ""
        try:
            for name, decode in self._decoders:
                values[name] = decode(data[name], into)
        except Invalid as error:
            error.path.append(name)
            raise
        for name in self.later:
            values[name] = None
        made = self._make(into, values) if self._make is not None else self.cls(**values)
        for name in self.later:
            kind = self.fields[name]
            assert isinstance(kind, Later)
            kind.resolve(data[name], into, _setter(made, name), f"({self.tag} {name})")
        return made


def _setter(obj: Any, name: str) -> Callable[[Any], None]:
    def done(value: Any) -> None:
        object.__setattr__(obj, name, value)

    return done


def record(spec: Spec) -> Spec:
    """Add `spec` to the allow-list."""
    assert spec.tag not in SPECS
    SPECS[spec.tag] = spec
    return spec


# -- values that are not records -----------------------------------------------------------


class RandomState(Kind):
    """A `random.Random`'s state: Mersenne Twister's 624 words and position, and the gauss
    carry (none of mockserver's streams draws one)."""

    def encode(self, value: Any, out: Writer) -> Any:
        version, words, gauss = value.getstate()
        return {"version": version, "words": list(words), "gauss": gauss}

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or data.keys() != {"version", "words", "gauss"}:
            raise Invalid("must be an object of version, words and gauss")
        words = data["words"]
        if (
            data["version"] != 3
            or type(words) is not list
            or len(words) != 625
            or any(type(w) is not int or not 0 <= w < 2**32 for w in words)
            or not 0 < words[-1] <= 624
        ):
            raise Invalid("is not the state of a random number generator")
        gauss = Opt(Num()).decode(data["gauss"], into)
        generator = random.Random(0)
        generator.setstate((3, tuple(words), gauss))
        return generator

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "version": {"const": 3},
                "words": {"type": "array", "items": {"type": "integer"}, "minItems": 625},
                "gauss": {"type": ["number", "null"]},
            },
            "required": ["version", "words", "gauss"],
            "additionalProperties": False,
        }


class Stream(Kind):
    """An id stream (`IdFactory`): its name, generator and the words drawn but not used."""

    _random = Opt(RandomState())

    def encode(self, value: Any, out: Writer) -> Any:
        name, generator, bits, count, pos = value.saved()
        return {
            "stream": name,
            "random": self._random.encode(generator, out),
            "words": count,
            "used": pos,
            "bits": format(bits, "x"),
        }

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or data.keys() != {"stream", "random", "words", "used", "bits"}:
            raise Invalid("must be an object of stream, random, words, used and bits")
        name = TEXT.decode(data["stream"], into)
        generator = self._random.decode(data["random"], into)
        count = Int(0, 1 << 16).decode(data["words"], into)
        pos = Int(0, count).decode(data["used"], into)
        bits = data["bits"]
        if type(bits) is not str or len(bits) > 8 * count + 1:
            raise Invalid("'bits' must be hex digits of at most 'words' 32-bit words")
        try:
            value = int(bits, 16)
        except ValueError:
            raise Invalid("'bits' must be hex digits") from None
        if value < 0 or (generator is None) != (count == 0):
            raise Invalid("a stream has words exactly when it has a generator")
        return IdFactory.resumed(name, generator, value, count, pos)

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "stream": {"type": "string"},
                "random": self._random.schema(),
                "words": {"type": "integer", "minimum": 0},
                "used": {"type": "integer", "minimum": 0},
                "bits": {"type": "string", "pattern": "^[0-9a-f]+$"},
            },
            "required": ["stream", "random", "words", "used", "bits"],
            "additionalProperties": False,
        }


STREAM = Stream()

# -- accounts, keys, OAuth -----------------------------------------------------------------

record(Spec(User, {"email": TEXT, "name": TEXT, "permissions": STRINGS}))
record(
    Spec(
        Account,
        {
            "id": TEXT,
            "name": TEXT,
            "default_region": REGION,
            "users": ListOf(Rec("User"), tuple),
        },
    )
)
record(
    Spec(
        ApiKey,
        {
            "key": TEXT,
            "account_id": TEXT,
            "environment": ENVIRONMENT,
            "scopes": STRING_SET,
            "owner": TEXT,
            "revoked": Bool(),
            "rate_limit": COUNT,
            "burst": COUNT,
        },
    )
)
record(
    Spec(
        OAuthClient,
        {
            "client_id": TEXT,
            "client_secret": TEXT,
            "account_id": TEXT,
            "redirect_uris": STRINGS,
            "name": TEXT,
            "token_lifetime": COUNT,
        },
    )
)
record(
    Spec(
        AuthorizationCode,
        {
            "code": TEXT,
            "client_id": TEXT,
            "account_id": TEXT,
            "user_email": TEXT,
            "scopes": STRING_SET,
            "redirect_uri": TEXT,
            "redirect_uri_given": Bool(),
            "code_challenge": Opt(TEXT),
            "expires_at": TIME,
            "token": Opt(TEXT),
        },
    )
)
record(
    Spec(
        AccessToken,
        {
            "token": TEXT,
            "client_id": TEXT,
            "account_id": TEXT,
            "user_email": TEXT,
            "scopes": STRING_SET,
            "expires_at": TIME,
            "expires_in": COUNT,
            "revoked": Bool(),
        },
    )
)

# -- vaults, documents, workflows, exports -------------------------------------------------

record(Spec(Member, {"email": TEXT, "role": Str(("owner", "member"))}))
record(
    Spec(
        Vault,
        {
            "id": TEXT,
            "name": TEXT,
            "region": REGION,
            "created_at": TIME,
            "members": ListOf(Rec("Member")),
            "lock_after": COUNT,
            "seq": COUNT,
        },
    )
)
record(Spec(DocumentVersion, {"version": Int(1), "sha256": TEXT, "created_at": TIME}))
record(
    Spec(
        Document,
        {
            "id": TEXT,
            "vault_id": TEXT,
            "region": REGION,
            "title": TEXT,
            "status": Str(DOCUMENT_STATUSES),
            "created_at": TIME,
            "sha256": TEXT,
            "metadata": DictOf(TEXT, Json()),
            "version": Int(1),
            "versions": ListOf(Rec("DocumentVersion")),
            "signers": ListOf(TEXT),
            "legal_hold": Bool(),
            "signed_at": Opt(TIME),
            "deleted": Bool(),
            "seq": COUNT,
        },
        skip=("summary_json", "detail_json"),
    )
)
record(
    Spec(
        WorkflowStep,
        {
            "assignee": TEXT,
            "condition": Opt(TEXT),
            "decision": Opt(Str((*DECISIONS, "skipped"))),
            "decided_at": Opt(TIME),
            "comment": Opt(TEXT),
        },
    )
)


def _workflow(into: Reader, values: dict[str, Any]) -> Workflow:
    workflow = Workflow(**values)
    if not 1 <= workflow.current_step <= max(1, len(workflow.steps)):
        raise Invalid("'current_step' must name one of its steps")
    return workflow


record(
    Spec(
        Workflow,
        {
            "id": TEXT,
            "document_id": TEXT,
            "region": REGION,
            "status": Str(WORKFLOW_STATUSES),
            "current_step": Int(1),
            "created_at": TIME,
            "steps": ListOf(Rec("WorkflowStep")),
            "last_decision": Opt(Tuple(TEXT, Str(DECISIONS))),
            "seq": COUNT,
        },
        make=_workflow,
    )
)
record(
    Spec(
        ExportJob,
        {
            "id": TEXT,
            "region": REGION,
            "period": TEXT,
            "start": TIME,
            "end": TIME,
            "format": Str(("csv",)),
            "status": Str(("processing", "completed")),
            "created_at": TIME,
            "completed_at": Opt(TIME),
            "expires_at": Opt(TIME),
            "signature": Opt(TEXT),
            "snapshot_seq": COUNT,
        },
        shared=True,
    )
)
record(
    Spec(
        AuditEvent,
        {
            "seq": Int(1),
            "id": TEXT,
            "type": TEXT,
            "actor": TEXT,
            "at": TIME,
            "resource_id": TEXT,
            "hash": TEXT,
            "raw": Bytes(),
        },
    )
)

# -- timers --------------------------------------------------------------------------------

ACTIONS = Rec("Completion", "AttemptTimer", "TimelineTimer")


def _timer(into: Reader, values: dict[str, Any]) -> Timer:
    return Timer(
        values["due"],
        values["order"],
        values["action"],
        cancelled=values["cancelled"],
        concurrent=values["concurrent"],
    )


record(
    Spec(
        Timer,
        {
            "due": SECONDS,
            "order": COUNT,
            "action": ACTIONS,
            "cancelled": Bool(),
            "concurrent": Bool(),
        },
        shared=True,
        make=_timer,
    )
)


def _lock(into: Reader, values: dict[str, Any]) -> Timer:
    world, region, doc_id = values["world"], values["region"], values["doc_id"]
    if world.regions[region].documents.get(doc_id) is None:  # the world is whole by now
        raise Invalid(f"locks document {doc_id!r}, which its world does not have")
    action = LockTimer(world, region, doc_id)
    return Timer(values["due"], values["order"], action, cancelled=values["cancelled"])


def _lock_fields(timer: Timer) -> dict[str, Any]:
    action = timer.action
    assert isinstance(action, LockTimer)
    return {
        "due": timer.due,
        "order": timer.order,
        "world": action.world,
        "region": action.region,
        "doc_id": action.doc_id,
        "cancelled": timer.cancelled,
    }


# A document's lock timer, the commonest timer by far (one per signed document of a seed),
# as one record: written only in the scheduler, where nothing else refers to it.
record(
    Spec(
        Timer,
        {
            "due": SECONDS,
            "order": COUNT,
            "world": Rec("World"),
            "region": REGION,
            "doc_id": TEXT,
            "cancelled": Bool(),
        },
        tag="Lock",
        make=_lock,
        get=_lock_fields,
    )
)


class Timers(Kind):
    """The scheduler's timers, in the order they fall due (a sorted list is a heap as it
    stands, so a restored scheduler saves the same list again): lock timers as `Lock`, the
    others as `Timer`."""

    def __init__(self) -> None:
        self._timer, self._lock = Rec("Timer"), Rec("Lock")

    def encode(self, value: Any, out: Writer) -> Any:
        lock, timer = self._lock.encode, self._timer.encode
        return [
            lock(item, out) if type(item.action) is LockTimer else timer(item, out)
            for item in sorted(value)
        ]

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not list:
            raise Invalid("must be a list")
        made = []
        lock, timer = self._lock.decode, self._timer.decode
        for index, item in enumerate(data):
            try:
                is_lock = type(item) is dict and item.get("$") == "Lock"
                made.append(lock(item, into) if is_lock else timer(item, into))
            except Invalid as error:
                error.path.append(index)
                raise
        return made

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": {"anyOf": [self._timer.schema(), self._lock.schema()]}}


def _completion(into: Reader, values: dict[str, Any]) -> Completion:
    world, job = values["world"], values["job"]
    if world.exports.get(job.id) is not job:
        raise Invalid(f"completes export '{job.id}', which its world does not have")
    return Completion(world, job, values["secret"])


record(
    Spec(
        Completion,
        {"world": Rec("World"), "job": Rec("ExportJob"), "secret": Bytes()},
        make=_completion,
    )
)

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
    return made


record(
    Spec(
        Record,
        {
            "scope": TEXT,
            "fingerprint": Opt(Bytes()),
            "permission": Opt(TEXT),
            "response": Opt(Bytes()),
            "expires_at": SECONDS,
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
        encode = self._pair.encode
        return [encode(pair, out) for pair in value]

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
REFUSAL = Opt(Tuple(Opt(DictOf(TEXT, Json())), TEXT, Opt(TEXT), Int(100, 599), TEXT))
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
            "at": SECONDS,
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
            "next_attempt_at": Opt(TIME),
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


def _attempt_timer(into: Reader, values: dict[str, Any]) -> AttemptTimer:
    engine = into.context.sandbox.webhooks
    return AttemptTimer(engine, values["book"], values["delivery"], values["generation"])


record(
    Spec(
        AttemptTimer,
        {"book": Rec("WebhookBook"), "delivery": Rec("Delivery"), "generation": Rec("Generation")},
        make=_attempt_timer,
    )
)

# -- scenarios -----------------------------------------------------------------------------


def _timeline_timer(into: Reader, values: dict[str, Any]) -> TimelineTimer:
    loaded, index = values["loaded"], values["index"]
    if index >= len(loaded.scenario.timeline):
        raise Invalid(f"names timeline entry {index} of a scenario with fewer")
    return TimelineTimer(into.context.sandbox.scenarios, loaded, index)


record(
    Spec(
        TimelineTimer,
        {"loaded": Rec("Loaded"), "index": COUNT},
        make=_timeline_timer,
        get=lambda timer: {"loaded": timer.loaded, "index": timer.index},
    )
)


def _loaded(into: Reader, values: dict[str, Any]) -> Loaded:
    scenario = values["scenario"]
    if len(values["done"]) != len(scenario.timeline):
        raise Invalid("'done' must have one entry per timeline entry")
    return Loaded(scenario, values["loaded_at"], [], values["done"])


def _loaded_spec() -> Spec:
    return Spec(
        Loaded,
        {
            "scenario": SCENARIO,
            "loaded_at": TIME,
            "timers": Later(ListOf(Rec("Timer"))),
            "done": ListOf(Bool()),
        },
        shared=True,
        make=_loaded,
    )


record(_loaded_spec())

# -- collections used by the top-level state -----------------------------------------------

WINDOW = ListOf(SECONDS, deque)
WINDOWS = DictOf(TEXT, WINDOW)
ANONYMOUS = DictOf(TEXT, WINDOW, OrderedDict)
