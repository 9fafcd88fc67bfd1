"""Timers on the mock clock: locking, export completion, webhook delivery attempts.

Timers run in due order, each with the clock set to its due time, so whatever a timer does is
stamped as if it had happened on time and any follow-up timer is scheduled from that moment.

A timer's action may return a coroutine (a webhook delivery attempt does: it sends HTTP). Two
ways of running timers treat that coroutine differently:

- `run_until_async` (what `/_mock/clock/advance` and `/set` await) awaits each one before the
  clock moves past its due time, so moving the clock 24 h runs a whole retry schedule, in order,
  and returns after. It first lets work already under way finish (`settle`), so the timeline is
  the same however fast a receiver answered. Timers marked `concurrent` (attempts to different
  webhook endpoints) that fall due at the same time have their work run together, at most
  `BATCH_MAX` at once, as the background path would run it.
- the synchronous `run_due` / `run_until` (at each request, from the real-clock ticker, after a
  write) start each coroutine as a background task on the running loop and move on, so no
  caller ever waits for a receiver.

Work is in two parts, so that running it together changes nothing but the real time it takes:
the coroutine does the waiting (the HTTP request) and returns a `Commit`, a plain function that
records the outcome and schedules what follows. The commits of a batch run in the order of its
timers, each after the one before, so timers made by them, and so every later run, are the same
as if each timer's work had been awaited in turn.

Background tasks are tracked so that `settle` can wait for them and `clear` (a reset) can
cancel them, whichever thread's event loop they run on.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from mockserver.core.clock import Clock

log = logging.getLogger("mockserver")

Commit = Callable[[], None]  # records what the work found, once it is this work's turn
Work = Coroutine[Any, Any, Commit | None]
Action = Callable[[int], Work | None]  # receives its due time in whole seconds

POLL = 0.005  # seconds between looks at work running on another thread's event loop
TICK = 0.25  # longest sleep of the real-clock ticker
BATCH_MAX = 16  # concurrent timers' work run together by a clock move (an account's endpoints)


@dataclass(order=True, slots=True)
class Timer:
    due: float
    order: int
    action: Action = field(compare=False)
    cancelled: bool = field(default=False, compare=False)
    concurrent: bool = field(default=False, compare=False)  # may run beside others of its time

    def cancel(self) -> None:
        self.cancelled = True


class Scheduler:
    """A heap of due timers over one clock, and the background work they started."""

    __slots__ = (
        "_background",
        "_clock",
        "_epoch",
        "_heap",
        "_order",
        "_running",
        "companions",
        "followers",
    )

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        # Schedulers of accounts on this scheduler's clock (`FollowClock`): a move of the clock
        # runs their timers too, interleaved with these in due order.
        self.followers: list[Scheduler] = []
        # Schedulers of accounts with a clock of their own: ticked with this one (a real
        # clock moves by itself), and their work waited for by `settle`.
        self.companions: list[Scheduler] = []
        self._heap: list[Timer] = []
        self._order = 0
        self._running = False
        self._epoch = 0  # bumped by clear(), so a run in progress stops at its next step
        self._background: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return sum(1 for t in self._heap if not t.cancelled)

    def at(self, due: float, action: Action, *, concurrent: bool = False) -> Timer:
        """Run `action` once the clock reaches `due`. `concurrent`: a clock move may run its
        work together with that of other concurrent timers due at the same time."""
        self._order += 1
        timer = Timer(due, self._order, action, concurrent=concurrent)
        heapq.heappush(self._heap, timer)
        return timer

    def saved(self) -> tuple[list[Timer], int]:
        """Every timer (cancelled ones too: objects may still refer to them) and the order
        counter: what a snapshot keeps of the scheduler."""
        return list(self._heap), self._order

    def restore(self, timers: list[Timer], order: int) -> None:
        """Put back what `saved` gave (a snapshot's timers), after dropping every timer and
        cancelling background work (`clear`)."""
        self.clear()
        self._heap = list(timers)
        heapq.heapify(self._heap)
        self._order = order

    def next_due(self) -> float | None:
        """When the earliest live timer is due, or None."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].due if self._heap else None

    # -- synchronous: coroutines go to the background ------------------------------------

    def run_due(self, now: float | None = None) -> int:
        """Run every timer already due (the followers' too); the number run. `now`: the clock's
        time as the caller read it (a request's `arrived`), else the clock is read."""
        ran = 0
        if now is None:
            now = self._clock.now()
        if self._heap and self._heap[0].due <= now:
            ran = self._run_own_until(now)
        for follower in self.followers:
            ran += follower.run_due()
        return ran

    def run_due_all(self) -> int:
        """`run_due`, and the companions' due timers too (each on its own clock): what a
        durable sandbox runs at the points its log records."""
        ran = self.run_due()
        for companion in self.companions:
            ran += companion.run_due()
        return ran

    def advance(self, seconds: float) -> int:
        """Move the clock forward by `seconds`, running timers on the way."""
        return self.run_until(self._clock.now() + seconds)

    def run_until(self, target: float) -> int:
        """Move the clock to `target` (never backwards), running due timers in order (the
        followers' among them); work they return is started in the background."""
        if not self.followers:
            return self._run_own_until(target)
        ran = 0
        while (due := self._next_due_all(target)) is not None:
            step = self._run_own_until(due)
            for follower in list(self.followers):
                step += follower.run_until(due)
            if step == 0:  # a scheduler already running (re-entered): it runs them itself
                break
            ran += step
        return ran + self._run_own_until(target)

    def _next_due_all(self, target: float) -> float | None:
        """The earliest due time by `target` of this scheduler's and its followers' timers."""
        due = self.next_due_followed()
        return due if due is not None and due <= target else None

    def next_due_followed(self) -> float | None:
        """When the earliest live timer of this scheduler or a follower is due, or None."""
        dues = [
            due
            for due in (self.next_due(), *(f.next_due() for f in self.followers))
            if due is not None
        ]
        return min(dues) if dues else None

    def _run_own_until(self, target: float) -> int:
        if self._running:  # a timer that advances the clock must not re-enter
            return 0
        self._running = True
        ran = 0
        try:
            while (timer := self._pop_due(target)) is not None:
                work = timer.action(int(timer.due))
                if work is not None:
                    self._start(work)
                ran += 1
            if target > self._clock.now():
                self._clock.set(target)
        finally:
            self._running = False
        return ran

    def _start(self, work: Work) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a synchronous caller): run it to the end here
            asyncio.run(_in_turn(work, None))
            return
        self._track(work, None)

    def _track(self, work: Work, after: asyncio.Task[None] | None) -> asyncio.Task[None]:
        """Run `work` as a background task that commits after `after` has."""
        task = asyncio.ensure_future(_in_turn(work, after))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # -- asynchronous: each coroutine is awaited in turn ---------------------------------

    async def run_due_async(self) -> int:
        await self._acquire()
        return await self._run_acquired(self._clock.now())

    async def advance_async(self, seconds: float) -> int:
        """`advance`, awaiting the work of each timer before the next one; `seconds` count from
        the clock as it stands once earlier work and clock moves are done."""
        await self._acquire()
        return await self._run_acquired(self._clock.now() + seconds)

    async def run_until_async(self, target: float) -> int:
        """Let background work finish, then move the clock to `target`, running due timers in
        order and awaiting the work each returns before moving on."""
        await self._acquire()
        return await self._run_acquired(target)

    async def _acquire(self) -> None:
        await self.settle()
        while self._running:  # another run is under way (a concurrent clock move): queue up
            await asyncio.sleep(POLL)
        self._running = True

    async def _run_acquired(self, target: float) -> int:
        try:
            if not self.followers:
                return await self._run_own(target)
            ran = 0
            while (due := self._next_due_all(target)) is not None:
                step = await self._run_own(due)
                for follower in list(self.followers):
                    step += await follower.run_until_async(due)
                if step == 0:
                    break
                ran += step
            return ran + await self._run_own(target)
        finally:
            self._running = False

    async def _run_own(self, target: float) -> int:
        """Run this scheduler's own timers due by `target` (acquired: see `_acquire`)."""
        epoch = self._epoch
        ran = 0
        batch: list[asyncio.Task[None]] = []  # work of concurrent timers of one due time
        batch_due = 0.0
        while epoch == self._epoch:
            head = self._peek_due(target)
            if batch and (
                head is None
                or not head.concurrent
                or head.due != batch_due
                or len(batch) >= BATCH_MAX
            ):
                await asyncio.wait(batch)  # the last one commits after every other
                batch = []
                continue
            if head is None:
                break
            timer = self._pop_due(target)
            assert timer is head
            work = timer.action(int(timer.due))
            ran += 1
            if work is None:
                continue
            # As a task, so a reset can cancel the attempt without cancelling this run.
            task = self._track(work, batch[-1] if batch else None)
            if timer.concurrent:
                batch.append(task)
                batch_due = timer.due
            else:
                await asyncio.wait([task])
        if epoch == self._epoch and target > self._clock.now():
            self._clock.set(target)
        return ran

    def _peek_due(self, target: float) -> Timer | None:
        """The next live timer due by `target`, left in place."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        if self._heap and self._heap[0].due <= target:
            return self._heap[0]
        return None

    def _pop_due(self, target: float) -> Timer | None:
        """The next live timer due by `target`, with the clock moved to its due time."""
        while self._heap and self._heap[0].due <= target:
            timer = heapq.heappop(self._heap)
            if timer.cancelled:
                continue
            if timer.due > self._clock.now():
                self._clock.set(timer.due)
            return timer
        return None

    @property
    def busy(self) -> int:
        """How many background tasks are still running."""
        return len(self._pending())

    def _pending(self) -> list[asyncio.Task[None]]:
        """Background tasks still running (the followers' and companions' too); those of a
        closed event loop never will, and go."""
        pending = []
        for other in (*self.followers, *self.companions):
            pending += other._pending()
        for task in list(self._background):
            if task.get_loop().is_closed():
                self._background.discard(task)
            elif not task.done():
                pending.append(task)
        return pending

    async def settle(self, timeout: float = 60.0) -> bool:
        """Wait until no background work is running (at most `timeout` seconds of real time);
        True when none is left. Work on a closed event loop can never finish and is dropped."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await asyncio.sleep(0)  # let writes just made start their work
        while True:
            pending = self._pending()
            if not pending:
                # An attempt's end starts its endpoint's next delivery with the loop's next
                # turn (`call_soon`): quiet only if nothing started then either.
                await asyncio.sleep(0)
                if not self._pending():
                    return True
                continue
            left = deadline - loop.time()
            if left <= 0:
                return False
            here = [t for t in pending if t.get_loop() is loop]
            if here and len(here) == len(pending):
                await asyncio.wait(here, timeout=left)
            else:
                await asyncio.sleep(POLL)

    async def tick_forever(self, longest: float = TICK) -> None:
        """Run due timers as the clock reaches them, without waiting for a request: the
        real-clock ticker the app starts in its lifespan."""
        while True:
            wait = longest
            for scheduler in (self, *self.followers, *self.companions):
                due = scheduler.next_due()
                if due is not None:
                    wait = min(wait, max(0.0, due - scheduler._clock.now()))
            await asyncio.sleep(wait)
            for scheduler in (self, *self.companions):
                try:
                    scheduler.run_due()  # the followers' with this one's
                except Exception:  # a failing timer must not stop every later one
                    log.exception("a timer failed")

    def clear(self) -> None:
        """Drop every timer and cancel background work (a reset), from any thread."""
        self._heap.clear()
        self._epoch += 1
        for task in list(self._background):
            task_loop = task.get_loop()
            if not task_loop.is_closed():
                task_loop.call_soon_threadsafe(task.cancel)
        self._background.clear()


async def _in_turn(work: Work, after: asyncio.Task[None] | None) -> None:
    """Do `work`, then commit its outcome once `after` (the work before it in a batch) is
    done, commit included. Cancelled while waiting for its turn (a reset, the loop closing),
    it commits at once: the work was done; a reset makes the commit a no-op."""
    commit = await work
    try:
        if after is not None and not after.done():
            await asyncio.wait([after])
    finally:
        if commit is not None:
            commit()
