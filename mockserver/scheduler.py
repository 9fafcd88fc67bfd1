"""Timers on the mock clock: locking, export completion, and later webhook retries.

Timers run in due order, each with the clock set to its due time, so whatever a timer does is
stamped as if it had happened on time and any follow-up timer is scheduled from that moment.
`advance`/`run_until` move a clock forward through every timer due on the way and return only
after they ran. With a real clock, due timers run lazily at the start of each request.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from mockserver.clock import Clock

Action = Callable[[int], None]  # receives its due time in whole seconds


@dataclass(order=True, slots=True)
class Timer:
    due: float
    order: int
    action: Action = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class Scheduler:
    """A heap of due timers over one clock."""

    __slots__ = ("_clock", "_heap", "_order", "_running")

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._heap: list[Timer] = []
        self._order = 0
        self._running = False

    def __len__(self) -> int:
        return sum(1 for t in self._heap if not t.cancelled)

    def at(self, due: float, action: Action) -> Timer:
        """Run `action` once the clock reaches `due`."""
        self._order += 1
        timer = Timer(due, self._order, action)
        heapq.heappush(self._heap, timer)
        return timer

    def run_due(self) -> int:
        """Run every timer already due; the number run."""
        if not self._heap or self._heap[0].due > self._clock.now():
            return 0
        return self.run_until(self._clock.now())

    def advance(self, seconds: float) -> int:
        """Move the clock forward by `seconds`, running timers on the way."""
        return self.run_until(self._clock.now() + seconds)

    def run_until(self, target: float) -> int:
        """Move the clock to `target` (never backwards), running due timers in order."""
        if self._running:  # a timer that advances the clock must not re-enter
            return 0
        self._running = True
        ran = 0
        try:
            while self._heap and self._heap[0].due <= target:
                timer = heapq.heappop(self._heap)
                if timer.cancelled:
                    continue
                if timer.due > self._clock.now():
                    self._clock.set(timer.due)
                timer.action(int(timer.due))
                ran += 1
            if target > self._clock.now():
                self._clock.set(target)
        finally:
            self._running = False
        return ran

    def clear(self) -> None:
        self._heap.clear()
