"""The scheduler: due order on a frozen clock, and timers whose work is a coroutine."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from mockserver.core.clock import FrozenClock
from mockserver.core.scheduler import BATCH_MAX, Scheduler, Work


def make() -> tuple[FrozenClock, Scheduler, list[tuple[str, int, float]]]:
    clock = FrozenClock(1000.0)
    return clock, Scheduler(clock), []


def test_sync_timers_run_in_due_order_at_their_due_time() -> None:
    clock, scheduler, log = make()

    def note(name: str) -> Callable[[int], None]:
        return lambda at: log.append((name, at, clock.now()))

    scheduler.at(1030, note("b"))
    scheduler.at(1010, note("a"))
    cancelled = scheduler.at(1020, note("x"))
    cancelled.cancel()
    assert scheduler.next_due() == 1010
    assert scheduler.advance(25) == 1
    assert log == [("a", 1010, 1010.0)]
    assert clock.now() == 1025.0
    assert scheduler.run_until(2000) == 1
    assert log[-1] == ("b", 1030, 1030.0)
    assert scheduler.next_due() is None


def test_the_async_run_awaits_each_timers_work_before_the_next() -> None:
    clock, scheduler, log = make()

    def sender(name: str) -> Work:
        async def send() -> None:
            log.append((f"{name} start", int(clock.now()), clock.now()))
            await asyncio.sleep(0.01)
            log.append((f"{name} end", int(clock.now()), clock.now()))
            if name == "first":  # work may schedule more work, inside the same run
                scheduler.at(clock.now() + 5, lambda at: sender("follow-up"))

        return send()

    scheduler.at(1010, lambda at: sender("first"))
    scheduler.at(1012, lambda at: sender("second"))
    ran = asyncio.run(scheduler.advance_async(100))
    assert ran == 3
    assert [entry[:2] for entry in log] == [
        ("first start", 1010),
        ("first end", 1010),
        ("second start", 1012),
        ("second end", 1012),
        ("follow-up start", 1015),
        ("follow-up end", 1015),
    ]
    assert clock.now() == 1100.0


def test_the_sync_path_starts_work_in_the_background() -> None:
    _clock, scheduler, _ = make()
    gate = asyncio.Event()
    finished: list[int] = []

    async def work() -> None:
        await gate.wait()
        finished.append(1)

    async def main() -> None:
        scheduler.at(1000, lambda at: work())
        assert scheduler.run_due() == 1  # returns at once; the work runs on
        assert scheduler.busy == 1
        gate.set()
        assert await scheduler.settle(timeout=5)
        assert scheduler.busy == 0

    asyncio.run(main())
    assert finished == [1]


def test_without_an_event_loop_the_sync_path_runs_the_work_to_the_end() -> None:
    _, scheduler, _ = make()
    done: list[str] = []

    async def work() -> None:
        await asyncio.sleep(0)
        done.append("ran")

    scheduler.at(1000, lambda at: work())
    assert scheduler.run_due() == 1
    assert done == ["ran"]


def test_a_second_clock_move_waits_for_the_first() -> None:
    clock, scheduler, _ = make()
    order: list[str] = []

    async def slow() -> None:
        await asyncio.sleep(0.02)
        order.append("slow done")

    async def main() -> None:
        scheduler.at(1010, lambda at: slow())
        first = asyncio.ensure_future(scheduler.advance_async(20))
        await asyncio.sleep(0.005)  # the first move is awaiting its timer's work
        second = await scheduler.advance_async(10)
        order.append(f"second at {int(clock.now())}")
        assert await first == 1
        assert second == 0

    asyncio.run(main())
    assert order == ["slow done", "second at 1030"]


def test_clear_cancels_background_work_from_another_thread() -> None:
    _, scheduler, _ = make()
    started = threading.Event()
    outcome: list[str] = []

    async def work() -> None:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            outcome.append("cancelled")
            raise

    async def main() -> None:
        scheduler.at(1000, lambda at: work())
        scheduler.run_due()
        await scheduler.settle(timeout=5)

    thread = threading.Thread(target=asyncio.run, args=(main(),))
    thread.start()
    assert started.wait(5)
    scheduler.clear()
    thread.join(5)
    assert not thread.is_alive()
    assert outcome == ["cancelled"]
    assert scheduler.busy == 0


def test_a_clear_during_an_async_run_stops_it() -> None:
    clock, scheduler, _ = make()

    async def resets() -> None:
        scheduler.clear()
        clock.reset()

    scheduler.at(1010, lambda at: resets())
    scheduler.at(1020, lambda at: pytest.fail("ran after the reset"))
    asyncio.run(scheduler.advance_async(100))
    assert clock.now() == 1000.0  # the run did not move the clock past the reset


def test_concurrent_timers_of_one_time_run_together_and_commit_in_timer_order() -> None:
    clock, scheduler, log = make()
    gates = {name: asyncio.Event() for name in ("a", "b", "c")}

    def attempt(name: str) -> Work:
        async def send() -> Callable[[], None]:
            log.append((f"{name} start", int(clock.now()), clock.now()))
            if name == "a":  # a is the slowest: b and c finish first (run one by one, they
                # never would: a times out)
                await asyncio.wait_for(gates["b"].wait(), 5)
                await asyncio.wait_for(gates["c"].wait(), 5)
            if name in gates:
                gates[name].set()

            def commit() -> None:
                log.append((f"{name} commit", int(clock.now()), clock.now()))
                if name == "a":  # a commit may schedule more work at the same time
                    scheduler.at(clock.now(), lambda at: attempt("a2"), concurrent=True)

            return commit

        return send()

    for name in ("a", "b", "c"):
        scheduler.at(1010, lambda at, name=name: attempt(name), concurrent=True)
    scheduler.at(1020, lambda at: attempt("d"), concurrent=True)
    assert asyncio.run(scheduler.advance_async(100)) == 5
    assert [entry[:2] for entry in log] == [
        ("a start", 1010),
        ("b start", 1010),
        ("c start", 1010),
        ("a commit", 1010),  # b and c were done first, yet commit after a, in timer order
        ("b commit", 1010),
        ("c commit", 1010),
        ("a2 start", 1010),  # made by a's commit: after every commit of its batch
        ("a2 commit", 1010),
        ("d start", 1020),  # the clock moves on once the work of 1010 is all committed
        ("d commit", 1020),
    ]


def test_a_timer_that_is_not_concurrent_ends_a_batch() -> None:
    clock, scheduler, log = make()

    def attempt(name: str) -> Work:
        async def send() -> Callable[[], None]:
            log.append((f"{name} start", int(clock.now()), clock.now()))
            await asyncio.sleep(0.005)
            return lambda: log.append((f"{name} commit", int(clock.now()), clock.now()))

        return send()

    scheduler.at(1010, lambda at: attempt("a"), concurrent=True)
    scheduler.at(1010, lambda at: log.append(("sync", at, clock.now())))
    scheduler.at(1010, lambda at: attempt("b"), concurrent=True)
    scheduler.at(1010, lambda at: attempt("c"))
    asyncio.run(scheduler.advance_async(10))
    assert [entry[0] for entry in log] == [
        "a start",
        "a commit",
        "sync",
        "b start",
        "b commit",
        "c start",
        "c commit",
    ]


def test_a_batch_holds_at_most_batch_max_attempts() -> None:
    clock, scheduler, _ = make()
    running = [0]
    most = [0]

    def attempt() -> Work:
        async def send() -> None:
            running[0] += 1
            most[0] = max(most[0], running[0])
            await asyncio.sleep(0.001)
            running[0] -= 1

        return send()

    for _ in range(BATCH_MAX * 2 + 3):
        scheduler.at(1010, lambda at: attempt(), concurrent=True)
    assert asyncio.run(scheduler.advance_async(10)) == BATCH_MAX * 2 + 3
    assert most[0] == BATCH_MAX
    assert clock.now() == 1010.0
