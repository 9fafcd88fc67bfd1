"""A durable sandbox (`mockserver run --state-dir DIR`): a write-ahead command log.

The sandbox is deterministic: ids, timestamps, hashes and signatures come from seeded streams
and the mock clock. So its state is the seed plus its inputs in order, and a log of the inputs
is enough to rebuild it. The inputs (`core/wal_records.py`) are every HTTP request (reads too:
each draws a request id and counts in the rate windows and the journal), the real clock reaching
a timer with no request to run it, and what each webhook delivery attempt found.

The rule, for every input:

1. a request's body is read whole; then, holding the section lock (inputs change state one at
   a time, so the log's order is the order they changed it), the real clock's wall reading is
   pinned (`Clock.pin`: the mock clock reads the same time all through the input, as replay
   will) and the record is queued for the log;
2. the app runs the input (due timers first and last, at this point of the log), its response
   is held back, and the lock is released;
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

`durable_replay.py` replays the log at start; `compact` turns the state into a checkpoint and
starts a new log once the log outgrows `Settings.state_log_max`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.errors import SnapshotError, StateDirError
from mockserver.core.scheduler import TICK
from mockserver.core.wal import LogFailed
from mockserver.core.wal_records import Outcome, Record, Request, Tick, encode
from mockserver.engine.calls import MAX_BODY
from mockserver.engine.durable_state import Opened, checkpoint_functions, start_generation
from mockserver.engine.envelope import envelope_bytes
from mockserver.webhooks.deliveries import Attempt

if TYPE_CHECKING:
    from mockserver.engine.sandbox import Sandbox
    from mockserver.web.durable_replay import Replayer

log = logging.getLogger("mockserver")

# Requests that await webhook attempts: they take the lock only when none is under way.
SETTLING = frozenset(
    {"/_mock/clock/advance", "/_mock/clock/set", "/_mock/webhooks/wait", "/_mock/ui/clock/advance"}
)

Checkpointer = Callable[["Sandbox"], bytes]  # the whole state as one file


class Durability:
    """The durable layer around the pipeline, the owner of DIR's log while the server runs."""

    def __init__(
        self,
        inner: ASGIApp,
        sandbox: Sandbox,
        opened: Opened,
        *,
        log_max: int,
        checkpointer: Checkpointer | None = None,
    ) -> None:
        self.inner = inner
        self.app: ASGIApp = inner  # the whole app, for the scopes of replayed requests
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

    # -- requests ------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_whole(receive)
        if body is None:
            return  # the client left before its body arrived: not an input
        settling = scope["path"] in SETTLING
        await self._acquire(settling)
        held: list[Message] = []
        try:
            wall = self.clock.pin()
            self._append(request_record(wall, scope, body))
            self.holder, self.settling = self.seq, settling
            await self.run_request(scope, body, _collector(held))
            end = self.opened.writer.written  # the request and the outcomes it awaited
        except LogFailed as error:
            await self._refuse(send, error, held)
            return
        finally:
            self._release()
        try:
            await self.opened.writer.sync(end)
        except LogFailed as error:
            await self._refuse(send, error, held)
            return
        for message in held:
            await send(message)
        if self.opened.writer.size > self.log_max and self.checkpointer is not None:
            self._start_compaction()

    async def run_request(self, scope: Scope, body: bytes, send: Send) -> None:
        """One request as an input: due timers, the app, due timers (live and in replay)."""
        scheduler = self.store.scheduler
        scheduler.run_due()
        try:
            await self.inner(scope, _body_receive(body), send)
        finally:
            scheduler.run_due()

    async def _acquire(self, settling: bool) -> None:
        scheduler = self.store.scheduler
        while True:
            if settling:
                await scheduler.settle()
            await self.lock.acquire()
            if not settling or not scheduler.busy:
                return
            self.lock.release()

    async def _refuse(self, send: Send, error: LogFailed, held: list[Message]) -> None:
        """The answer to a request the log could not keep: a 500 that says why (the request
        id is the one the request drew, if it ran). The server logs the failure once."""
        if not self.told_failure:
            self.told_failure = True
            log.error("%s; no request is answered until the server is restarted", error)
        request_id = ""
        if held and held[0]["type"] == "http.response.start":
            request_id = dict(held[0]["headers"]).get(b"x-request-id", b"").decode()
        message = (
            "The sandbox's state directory cannot be written, so this request was not kept; "
            "restart the server once it can be."
        )
        body = envelope_bytes("api_error", message, None, request_id)
        length = str(len(body)).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", length)]
        await send({"type": "http.response.start", "status": 500, "headers": headers})
        await send({"type": "http.response.body", "body": body})

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
            self.store.scheduler.run_due()
        finally:
            self._release()

    # -- the clock reaching a timer ------------------------------------------------------

    async def tick_forever(self) -> None:
        """Run timers as the real clock reaches them, each run an input of the log."""
        scheduler, clock = self.store.scheduler, self.clock
        while True:
            due = scheduler.next_due()
            wait = TICK if due is None else min(TICK, max(0.0, due - clock.unpinned()))
            await asyncio.sleep(wait)
            due = scheduler.next_due()
            if due is None or due > clock.unpinned():
                continue
            await self.lock.acquire()
            try:
                self._append(Tick(clock.pin()))
                scheduler.run_due()
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
        self, inner: contextlib.AbstractAsyncContextManager[None]
    ) -> AsyncIterator[None]:
        """The lifespan: replay DIR's log, then serve (with the durable ticker on a real clock),
        and make the log durable at shutdown."""
        from mockserver.web.durable_replay import replay

        await replay(self)
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


def request_record(wall: float, scope: Scope, body: bytes) -> Request:
    """The log's record of a request as the app is about to receive it."""
    client, server = scope.get("client"), scope.get("server")
    return Request(
        wall,
        scope["method"],
        scope.get("scheme", "http"),
        scope["path"],
        scope.get("raw_path") or scope["path"].encode(),
        scope.get("query_string", b""),
        tuple((bytes(k), bytes(v)) for k, v in scope.get("headers", ())),
        (client[0], client[1]) if client else None,
        (server[0], server[1] or 0) if server else None,
        body,
    )


async def read_whole(receive: Receive) -> bytes | None:
    """The request body (past MAX_BODY, its first MAX_BODY + 1 bytes: the app refuses it with
    413 the same way), or None when the client disconnected first."""
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_BODY:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)[: MAX_BODY + 1]


def _body_receive(body: bytes) -> Receive:
    """A receive that gives `body` in one message, then a disconnect (in the live run and in a
    replay alike)."""
    given = False

    async def receive() -> Message:
        nonlocal given
        if given:
            return {"type": "http.disconnect"}
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _collector(held: list[Message]) -> Send:
    async def send(message: Message) -> None:
        held.append(message)

    return send


def make_durable(app: Any, sandbox: Sandbox, opened: Opened) -> Durability:
    """Make `app` (a `MockApp` just built on `opened`'s clock) durable: load DIR's checkpoint
    now (StateDirError if it does not load), replay its log in the lifespan, log every input
    from then on."""
    settings = sandbox.settings
    checkpoint, load = checkpoint_functions()
    if opened.checkpoint is not None:
        opened.clock.pin_at(float(opened.begin.facts.get("at", 0.0)))  # where it was taken
        try:
            load(sandbox, opened.checkpoint)
        except SnapshotError as error:
            path = str(opened.state.path / "checkpoint")
            raise StateDirError(path, f"the checkpoint cannot be loaded: {error}") from None
    durability = Durability(
        app.http,
        sandbox,
        opened,
        log_max=settings.state_log_max,
        checkpointer=checkpoint,
    )
    durability.app = app
    app.http = durability
    app.router.lifespan_context = lambda _: durability.running(sandbox.running())
    app.state.durability = durability
    return durability
