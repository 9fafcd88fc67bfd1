"""The sandbox's clock, as the settings ask for it."""

from __future__ import annotations

from mockserver.core.clock import Clock, FrozenClock, RealClock, parse_ts
from mockserver.core.config import DEFAULT_START_TIME, Settings


def make_clock(settings: Settings) -> Clock:
    """A frozen clock at the start time, or the wall clock (moved to the start time if given)."""
    if settings.clock_mode == "frozen":
        return FrozenClock(parse_ts(settings.start_time or DEFAULT_START_TIME))
    clock = RealClock()
    if settings.start_time:
        clock.start_at(parse_ts(settings.start_time))
    return clock
