"""Replaying a durable sandbox's log at start.

A recorded request is run again exactly as it ran the first time: through the same app
(the request id, the journal entry, the rate windows, idempotency keys, the region routing),
with the mock clock's wall reading pinned to the recorded one and its response thrown away.

Records are replayed in log order, each as the live run ran it (`Durability.run_request`):

- a request runs through the app below the log;
- a tick runs the timers due at its time;
- a webhook attempt's outcome is given to the delivery engine in place of HTTP: an attempt
  awaited inside a replayed clock move takes its outcome when the move reaches it (in the
  order the live run committed them); an attempt that ran in the background waits until the
  replay reaches its record, and is committed there.

An attempt still waiting when the log ends had no outcome logged (the process died while it
was under way): it is sent for real, now (at-least-once delivery).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from mockserver.core.clock import Clock
from mockserver.domain.store import Store
from mockserver.engine.durable.inputs import request_of, settles
from mockserver.engine.durable.records import Outcome, Request, Tick
from mockserver.engine.durable.state import Opened
from mockserver.engine.request import Request as Served
from mockserver.engine.request import Response, Serve

log = logging.getLogger("mockserver")

PATIENCE = 10_000  # event-loop turns to wait for a replayed attempt to reach its outcome
COMMIT_TIMEOUT = 30.0  # seconds for a handed outcome to be committed

Key = tuple[str, int]  # (delivery id, attempt number)


class ReplayDiverged(RuntimeError):
    """The replay did not do what the log recorded (a bug: the log is not lost)."""


class Replayer:
    """Hands logged attempt outcomes to the delivery engine at their points of the log."""

    def __init__(self, records: list[object]) -> None:
        self.within: dict[int, list[Outcome]] = {}
        self.last = 0  # the sequence number of the log's last input (not counting outcomes
        # logged within it)
        self.seq = 0  # the input being replayed
        self.settling = False  # whether it awaits webhook attempts
        for seq, record in enumerate(records, start=2):
            if isinstance(record, Outcome) and record.within:
                self.within.setdefault(record.within, []).append(record)
            else:
                self.last = seq
        self.current: list[Outcome] = []  # outcomes the replayed clock move awaits, in order
        self.turns: list[asyncio.Event] = []  # set once the outcome of that index committed
        self.waiting: dict[Key, asyncio.Future[Outcome | None]] = {}
        self.committed = asyncio.Event()  # set by the engine's commit of a handed outcome

    def enter(self, seq: int, settling: bool) -> None:
        """The replay is at record `seq`: the outcomes logged within it become available."""
        self.seq, self.settling = seq, settling
        self.current = self.within.pop(seq, [])
        self.turns = [asyncio.Event() for _ in self.current]

    def leave(self, seq: int) -> None:
        left = [o for o, turn in zip(self.current, self.turns, strict=True) if not turn.is_set()]
        if left:
            log.warning("replay: record %d left %d logged attempt(s) unused", seq, len(left))
        self.current, self.turns = [], []
        self.seq, self.settling = 0, False

    async def outcome(
        self, delivery_id: str, number: int
    ) -> tuple[Outcome, Callable[[], None]] | None:
        """The delivery engine asks for an attempt's outcome: the logged one at its turn (in
        the order the live run committed them), or None when it is to be made for real: the
        log is over, or the process died in the middle of the clock move that awaits it."""
        key = (delivery_id, number)
        for index, logged in enumerate(self.current):
            if (logged.delivery_id, logged.number) == key and not self.turns[index].is_set():
                if index:
                    await self.turns[index - 1].wait()
                return logged, self.turns[index].set
        if self.settling and self.seq == self.last:
            return None
        future = asyncio.get_running_loop().create_future()
        self.waiting[key] = future
        got = await future
        return None if got is None else (got, self.committed.set)

    async def hand(self, record: Outcome) -> None:
        """An attempt the live run committed on its own: hand it its outcome and wait until
        the delivery engine has committed it."""
        key = (record.delivery_id, record.number)
        for _ in range(PATIENCE):  # its task may not have run up to asking yet
            if key in self.waiting:
                break
            await asyncio.sleep(0)
        else:
            raise ReplayDiverged(f"attempt {record.number} of {record.delivery_id} never started")
        self.committed = asyncio.Event()
        self.waiting.pop(key).set_result(record)
        await asyncio.wait_for(self.committed.wait(), COMMIT_TIMEOUT)

    def release_waiting(self) -> int:
        """The log is over: attempts still waiting are made for real; how many."""
        waiting, self.waiting = self.waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_result(None)
        return len(waiting)


def _nothing() -> None:
    return None


class Replaying(Protocol):
    """What the replay reads and sets of the log it replays (`log.Durability`)."""

    replayer: Replayer | None  # set while the log is replayed
    holder: int  # the sequence number of the input holding the lock (0: none)
    settling: bool  # whether that input awaits webhook attempts

    @property
    def opened(self) -> Opened: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def store(self) -> Store: ...

    async def run_request(self, request: Served, run: Serve) -> Response: ...


async def replay(durability: Replaying, run: Serve) -> None:
    """Replay the records of the log onto the sandbox (built from the seed, or loaded from the
    checkpoint the log follows), each request entering the app through `run`."""
    records = durability.opened.records
    if not records:
        return
    replayer = durability.replayer = Replayer(list(records))
    clock, scheduler = durability.clock, durability.store.scheduler
    try:
        for seq, record in enumerate(records, start=2):
            if isinstance(record, Request):
                clock.pin_at(record.wall)
                settling = settles(record.path)
                replayer.enter(seq, settling)
                durability.holder, durability.settling = seq, settling
                try:
                    await durability.run_request(request_of(record), run)
                except Exception:
                    log.exception("replay: record %d (%s) failed", seq, record.path)
                finally:
                    durability.holder, durability.settling = 0, False
                    replayer.leave(seq)
            elif isinstance(record, Tick):
                clock.pin_at(record.wall)
                scheduler.run_due_all()
            elif isinstance(record, Outcome) and not record.within:
                clock.pin_at(record.wall)
                try:
                    await replayer.hand(record)
                except (ReplayDiverged, TimeoutError) as error:
                    log.error("replay: record %d: %s", seq, error)
                scheduler.run_due_all()
    finally:
        durability.replayer = None
        sent = replayer.release_waiting()
        if sent:
            log.warning("replay: %d webhook attempt(s) had no logged outcome; sending again", sent)
    await asyncio.sleep(0)
