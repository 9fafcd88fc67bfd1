"""A durable sandbox (`mockserver run --state-dir DIR`): a write-ahead command log.

The sandbox is deterministic: ids, timestamps, hashes and signatures come from seeded streams
and the mock clock. So its state is the seed plus its inputs in order, and a log of the inputs
is enough to rebuild it. The inputs (`records.py`) are every request (reads too:
each draws a request id and counts in the rate windows and the journal), the real clock reaching
a timer with no request to run it, and what each webhook delivery attempt found.

The rule, for every input:

1. a request's body is read whole; then, holding the section lock (inputs change state one at
   a time, so the log's order is the order they changed it), the real clock's wall reading is
   pinned (`Clock.pin`: the mock clock reads the same time all through the input, as replay
   will) and the record is queued for the log;
2. the app below the log runs the input (due timers first and last, at this point of the log), its
   response is held back, and the lock is released;
3. the response is sent once the log is on disk up to and including the record: flushes (one
   `write` of the queued records, one `fdatasync`) run one at a time in a thread, each covering
   every record queued before it starts (group commit). A flush that fails fails the log for
   good (`LogFailed`): that request, and every one after it, is answered with a 500 that says
   so, since what they ran on is not all in the log.

So every answered request is on disk, and so is everything before it in the log. A webhook
attempt is sent only once the record that caused it is on disk (a receiver never hears of a
write that a crash would undo); its outcome is logged when it is committed, as an input of its
own, or as part of the clock move that awaited it (`within`). An attempt under way when the
process died has no outcome in the log: after a restart it is sent again (at least once).

Requests that wait for webhook attempts (clock moves, `/_mock/webhooks/wait`) take the lock
only when no attempt is under way, so every attempt they await is one they started.

Requests the sandbox makes to itself inside a request (a trigger's recipe) are part of that
input: they run inside it, entering the app marked as its own, which the log passes through.

`replay.py` replays the log at start; `compact` turns the state into a checkpoint and
starts a new log once the log outgrows `Settings.state_log_max`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from mockserver.core.errors import InternalError, SnapshotError, StateDirError
from mockserver.core.scheduler import TICK
from mockserver.engine.durable.inputs import body_cap, request_record, settles, with_body
from mockserver.engine.durable.records import Outcome, Record, Tick, encode
from mockserver.engine.durable.replay import Replayer, replay
from mockserver.engine.durable.state import Opened, start_generation
from mockserver.engine.durable.wal import LogFailed
from mockserver.engine.envelope import render_error
from mockserver.engine.parts import Parts
from mockserver.engine.request import BodyReader, Request, Response, Serve
from mockserver.engine.snapshots import checkpoint, load_checkpoint
from mockserver.webhooks.deliveries import Attempt

log = logging.getLogger("mockserver")

Checkpointer = Callable[[Parts], bytes]  # the whole state as one file


class Durability:
    """The owner of DIR's log while the server runs: every input goes through `serve`."""

    def __init__(
        self,
        sandbox: Parts,
        opened: Opened,
        *,
        log_max: int,
        checkpointer: Checkpointer | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.store = sandbox.store
        self.clock = sandbox.store.clock
        self.opened = opened
        self.log_max = log_max
        self.checkpointer = checkpointer
        self.lock = asyncio.Lock()
        self.seq = 1 + len(opened.records)  # records in the log (its `Begin` is number 1)
        self.holder = 0  # the sequence number of the input holding the lock (0: none)
        self.settling = False  # whether that input awaits webhook attempts
        self.replayer: Replayer | None = None  # while the log is replayed at start
        self._compaction: asyncio.Task[None] | None = None
        self.told_failure = False  # whether the log's failure was logged
        sandbox.webhooks.outcome_hook = self.outcome
        sandbox.webhooks.defer_runs = True
        for tenant in sandbox.tenants or ():  # accounts the checkpoint held
            tenant.sandbox.webhooks.durable_like(sandbox.webhooks)

    # -- requests ------------------------------------------------------------------------

    async def serve(self, request: Request, reader: BodyReader | None, run: Serve) -> Response:
        """A request as an input of the log, run by `run` (the app below the log): answered
        once it is on disk. Raises Disconnected when the client left before its body arrived
        (not an input)."""
        if reader is not None:
            request = with_body(request, await reader(body_cap(request.path)))
        settling = settles(request.path)
        await self._acquire(settling)
        response: Response | None = None
        try:
            wall = self.clock.pin()
            self._append(request_record(wall, request))
            self.holder, self.settling = self.seq, settling
            response = await self.run_request(request, run)
            end = self.opened.writer.written  # the request and the outcomes it awaited
        except LogFailed as error:
            return self._refuse(error, response)
        finally:
            self._release()
        try:
            await self.opened.writer.sync(end)
        except LogFailed as error:
            return self._refuse(error, response)
        if self.opened.writer.size > self.log_max and self.checkpointer is not None:
            self._start_compaction()
        return response

    async def run_request(self, request: Request, run: Serve) -> Response:
        """One request as an input: due timers, `run` (the app below the log), due timers
        (live and replay)."""
        scheduler = self.store.scheduler
        scheduler.run_due_all()
        try:
            return await run(request)
        finally:
            scheduler.run_due_all()

    async def _acquire(self, settling: bool) -> None:
        scheduler = self.store.scheduler
        while True:
            if settling:
                await scheduler.settle()
            await self.lock.acquire()
            if not settling or not scheduler.busy:
                return
            self.lock.release()

    def _refuse(self, error: LogFailed, answered: Response | None) -> Response:
        """The answer to a request the log could not keep: a 500 that says why (the request
        id is the one the request drew, if it ran). The server logs the failure once."""
        if not self.told_failure:
            self.told_failure = True
            log.error("%s; no request is answered until the server is restarted", error)
        request_id = "" if answered is None else answered.header("x-request-id") or ""
        message = (
            "The sandbox's state directory cannot be written, so this request was not kept; "
            "restart the server once it can be."
        )
        return render_error(InternalError(message), request_id)

    def _release(self) -> None:
        self.holder, self.settling = 0, False
        self.lock.release()

    def _append(self, record: Record) -> int:
        end = self.opened.writer.append(encode(record))
        self.seq += 1
        return end

    # -- webhook attempts ----------------------------------------------------------------

    async def outcome(
        self, delivery_id: str, number: int, work: Coroutine[Any, Any, Attempt]
    ) -> tuple[Attempt, Callable[[], None]]:
        """The delivery engine's outcome hook: replayed from the log, or made and logged."""
        if self.replayer is not None:
            try:
                replayed = await self.replayer.outcome(delivery_id, number)
            except BaseException:
                work.close()
                raise
            if replayed is not None:
                work.close()
                outcome, done = replayed
                attempt = Attempt(outcome.at, outcome.status, outcome.error, outcome.duration_ms)
                return attempt, done
        writer = self.opened.writer
        try:
            await writer.sync(writer.written)  # what caused the attempt is on disk first
        except BaseException:
            work.close()
            raise
        attempt = await work
        if self.settling and self.holder:  # the input holding the lock awaits this attempt
            # Logged once committed: the log's order is the order the commits ran in, which
            # for attempts run together is their timers' order, not the order they finished.
            within = self.holder
            outcome = _outcome(within, 0.0, delivery_id, number, attempt)
            return attempt, lambda: self._logged(outcome)
        await self.lock.acquire()
        try:
            wall = self.clock.pin()
            self._append(_outcome(0, wall, delivery_id, number, attempt))
        except BaseException:
            self.lock.release()
            raise
        self.holder = self.seq
        return attempt, self._end_outcome

    def _logged(self, outcome: Outcome) -> None:
        self._append(outcome)

    def _end_outcome(self) -> None:
        try:
            self.store.scheduler.run_due_all()
        finally:
            self._release()

    # -- the clock reaching a timer ------------------------------------------------------

    async def tick_forever(self) -> None:
        """Run timers as the real clock reaches them, each run an input of the log."""
        scheduler, clock = self.store.scheduler, self.clock
        while True:
            due = scheduler.next_due_followed()  # accounts on the server clock have timers too
            wait = TICK if due is None else min(TICK, max(0.0, due - clock.unpinned()))
            await asyncio.sleep(wait)
            due = scheduler.next_due_followed()
            if due is None or due > clock.unpinned():
                continue
            await self.lock.acquire()
            try:
                self._append(Tick(clock.pin()))
                scheduler.run_due_all()
            except LogFailed:
                return  # nothing runs any more: it could not be kept (the requests say so)
            except Exception:  # a failing timer must not stop every later one
                log.exception("a timer failed")
            finally:
                self._release()

    # -- compaction ----------------------------------------------------------------------

    def _start_compaction(self) -> None:
        if self._compaction is None or self._compaction.done():
            self._compaction = asyncio.ensure_future(self.compact())

    async def compact(self) -> None:
        """Write the whole state as a checkpoint and start a new, empty log after it (when no
        webhook attempt is under way, so none straddles the two). Requests wait meanwhile."""
        assert self.checkpointer is not None
        opened = self.opened
        await self._acquire(settling=True)
        try:
            wall = self.clock.pin()
            data = self.checkpointer(self.sandbox)
            await opened.writer.sync(opened.writer.written)
            settings = self.sandbox.settings
            await asyncio.to_thread(start_generation, opened, data, settings, wall)
            self.seq = 1
            log.info("state directory compacted: a %d-byte checkpoint", len(data))
        finally:
            self._release()

    # -- the server's life ---------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(
        self, inner: contextlib.AbstractAsyncContextManager[None], own_requests: Serve
    ) -> AsyncIterator[None]:
        """The lifespan: replay DIR's log (each request entering through `own_requests`), then
        serve (with the durable ticker on a real clock), and make the log durable at
        shutdown."""
        await replay(self, own_requests)
        ticker = None
        if self.clock.mode == "real":
            ticker = asyncio.get_running_loop().create_task(self.tick_forever())
        try:
            async with inner:
                yield
        finally:
            if ticker is not None:
                ticker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticker
            writer = self.opened.writer
            with contextlib.suppress(LogFailed):  # what it kept out of the log stays out
                await writer.sync(writer.written)


def _outcome(within: int, wall: float, delivery_id: str, number: int, attempt: Attempt) -> Outcome:
    return Outcome(
        within,
        wall,
        delivery_id,
        number,
        attempt.at,
        attempt.status_code,
        attempt.error,
        attempt.duration_ms,
    )


def make_durable(sandbox: Parts, opened: Opened) -> Durability:
    """Make `sandbox` (just built on `opened`'s clock) durable: load DIR's checkpoint now
    (StateDirError if it does not load), replay its log when it starts running, log every
    input from then on."""
    settings = sandbox.settings
    if opened.checkpoint is not None:
        opened.clock.pin_at(float(opened.begin.facts.get("at", 0.0)))  # where it was taken
        try:
            load_checkpoint(sandbox, opened.checkpoint)
        except SnapshotError as error:
            path = str(opened.state.path / "checkpoint")
            raise StateDirError(path, f"the checkpoint cannot be loaded: {error}") from None
    return Durability(sandbox, opened, log_max=settings.state_log_max, checkpointer=checkpoint)
