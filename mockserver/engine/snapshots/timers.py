"""Timers in a snapshot, and the scenarios whose timelines they run: a timer is its due time,
its place in the scheduler and its action (a document's lock as one `Lock` record, an export's
completion, a webhook delivery's next attempt, a timeline entry); a loaded scenario is its
file's text with its counters (`scenarios`)."""

from __future__ import annotations

from typing import Any

from mockserver.core.containers import Later, ListOf
from mockserver.core.kinds import Bool, Bytes, Invalid, Kind, Reader, Writer
from mockserver.core.scheduler import Timer
from mockserver.domain.audit_exports import Completion
from mockserver.domain.documents import LockTimer
from mockserver.engine.snapshots.kinds import Rec
from mockserver.engine.snapshots.records import (
    COUNT,
    DUE,
    REGION,
    TEXT,
    TIME,
    Spec,
    record,
)
from mockserver.engine.snapshots.scenarios import SCENARIO
from mockserver.scenarios.engine import Loaded, TimelineTimer
from mockserver.webhooks.delivery import AttemptTimer

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
            "due": DUE,
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
            "due": DUE,
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
