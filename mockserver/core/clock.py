"""The mock clock: the only source of time in the server.

`RealClock` follows the wall clock plus an offset that `advance`/`set` move; `FrozenClock`
stands still until told. Both return float Unix seconds. Timestamps are rendered in RFC 3339,
UTC, with whole seconds. A durable sandbox pins the real clock's wall reading (`pin`): it moves
only when a logged input moves it, so replaying the log reads the same times.
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from datetime import UTC, datetime


class Clock:
    """Common interface; `mode` is what `GET /_mock/clock` reports."""

    mode = "real"
    followed = False  # another clock's time, moved only by that clock's owner (`FollowClock`)

    def now(self) -> float:
        raise NotImplementedError

    def advance(self, seconds: float) -> None:
        raise NotImplementedError

    def set(self, at: float) -> None:
        raise NotImplementedError

    def reset(self) -> None:
        """Back to where the clock started (a reset of the whole mock does this)."""
        raise NotImplementedError

    def freeze(self) -> None:
        """Stop the clock where it is until the next reset (a scenario's `clock: freeze`)."""

    def shown_mode(self) -> str:
        """The mode the control plane shows (a followed clock's, for `FollowClock`)."""
        return self.mode

    def pin(self) -> float:
        """Hold the wall-clock reading where it is now, until the next pin; the reading (0 for
        a clock that does not follow the wall)."""
        return 0.0

    def pin_at(self, wall: float) -> None:
        """Hold the wall-clock reading at `wall` (a reading `pin` gave, replayed)."""

    def unpinned(self) -> float:
        """What `now` would be with the wall reading not held."""
        return self.now()

    def saved(self) -> tuple[float, float | None, str]:
        """(now, where it stands still if frozen, mode): what a snapshot keeps of the clock."""
        raise NotImplementedError

    def restore(self, saved: tuple[float, float | None, str]) -> None:
        """Back to what `saved` gave: the same time (a real clock runs on from it)."""
        raise NotImplementedError


class RealClock(Clock):
    """Wall-clock time shifted by an offset, so tests can still jump ahead."""

    mode = "real"

    def __init__(self, wall_of: RealClock | None = None) -> None:
        self._offset = 0.0
        self._initial_offset = 0.0
        self._frozen_at: float | None = None
        self._wall: float | None = None  # the held wall reading (see `pin`)
        # The clock whose wall reading this one reads (an account's own real clock reads the
        # server's, so a durable server's pinned reading holds for its accounts too).
        self._wall_of = wall_of

    def _time(self) -> float:
        if self._wall is not None:
            return self._wall
        if self._wall_of is not None:
            return self._wall_of._time()
        return time.time()  # noqa: TID251  # wall-clock ok: this is the clock

    @property
    def origin(self) -> float:
        """The offset a reset comes back to (where the clock started)."""
        return self._initial_offset

    def resume(self, origin: float) -> None:
        """Run from the `origin` of an earlier process (its clock, rebuilt from its log)."""
        self._offset = self._initial_offset = origin

    def pin(self) -> float:
        self._wall = None
        self._wall = self._time()
        return self._wall

    def pin_at(self, wall: float) -> None:
        self._wall = wall

    def unpinned(self) -> float:
        if self._frozen_at is not None:
            return self._frozen_at
        return time.time() + self._offset  # noqa: TID251  # wall-clock ok: this is the clock

    def start_at(self, at: float) -> None:
        """Run from `at` onwards; a reset comes back to this offset."""
        self.set(at)
        self._initial_offset = self._offset

    def now(self) -> float:
        """The time; it stops at the last second a timestamp can show (a restored snapshot
        may start it near there), like an advance (`Control.advance`)."""
        if self._frozen_at is not None:
            return self._frozen_at
        return min(self._time() + self._offset, LAST_SECOND)

    def advance(self, seconds: float) -> None:
        if self._frozen_at is not None:
            self._frozen_at += seconds
        self._offset += seconds

    def set(self, at: float) -> None:
        if self._frozen_at is not None:
            self._frozen_at = at
        self._offset = at - self._time()

    def reset(self) -> None:
        self._offset = self._initial_offset
        self._frozen_at = None
        self.mode = "real"

    def freeze(self) -> None:
        self._frozen_at = self.now()
        self.mode = "frozen"

    def saved(self) -> tuple[float, float | None, str]:
        return self.now(), self._frozen_at, self.mode

    def restore(self, saved: tuple[float, float | None, str]) -> None:
        now, self._frozen_at, self.mode = saved
        self._offset = now - self._time()


class FrozenClock(Clock):
    """Time that moves only when told to."""

    mode = "frozen"

    def __init__(self, start: float) -> None:
        self.start = start
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def set(self, at: float) -> None:
        self._now = at

    def reset(self) -> None:
        self._now = self.start

    def saved(self) -> tuple[float, float | None, str]:
        return self._now, self._now, self.mode

    def restore(self, saved: tuple[float, float | None, str]) -> None:
        self._now = saved[0]


class FollowClock(Clock):
    """The server's clock as an account without a clock of its own sees it: the same time,
    moved only by the server (its timers run when the server's clock moves them, see
    `Scheduler.followers`). Resetting or restoring the account leaves the server's time alone."""

    followed = True

    def __init__(self, server: Clock) -> None:
        self.server = server
        self.mode = server.mode

    def now(self) -> float:
        return self.server.now()

    def advance(self, seconds: float) -> None:
        """Only a run of the server's timers moves time here, and it moves the server's."""
        self.server.advance(seconds)

    def set(self, at: float) -> None:
        self.server.set(at)

    def reset(self) -> None:
        self.mode = self.server.mode

    def freeze(self) -> None:
        """An account cannot stop the server's clock."""

    def shown_mode(self) -> str:
        return self.server.shown_mode()

    def saved(self) -> tuple[float, float | None, str]:
        return self.server.saved()

    def restore(self, saved: tuple[float, float | None, str]) -> None:
        """An account's restore leaves the server's time alone."""
        self.mode = self.server.mode


_RFC3339 = "%Y-%m-%dT%H:%M:%SZ"
# Years 1 to 9999, the range datetime can show.
FIRST_SECOND = -62_135_596_800
LAST_SECOND = 253_402_300_799


def format_ts(epoch: float) -> str:
    """RFC 3339 UTC with whole seconds, e.g. `2026-01-15T09:00:00Z` (ValueError past the
    years 1 to 9999)."""
    return datetime.fromtimestamp(int(epoch), UTC).strftime(_RFC3339)


def http_date(epoch: float) -> bytes:
    """An HTTP `Date` value (RFC 9110 IMF-fixdate, e.g. `Thu, 15 Jan 2026 09:00:00 GMT`) of the
    whole second, in English whatever the locale; clamped to the years 1 to 9999."""
    seconds = min(max(math.floor(epoch), FIRST_SECOND), LAST_SECOND)
    return email.utils.formatdate(seconds, usegmt=True).encode()


# RFC 3339 allows a leap second, `23:59:60`; Unix time (and datetime) has none, so it is read
# as the second after `23:59:59`, where POSIX clocks put it.
_LEAP_SECOND = re.compile(r"([Tt ]\d\d:\d\d:)60(?=[.,Zz+-]|$)")


def parse_ts(text: str) -> float:
    """Parse an RFC 3339 / ISO 8601 timestamp or date (UTC when no offset); ValueError if bad."""
    if not isinstance(text, str) or not text:
        raise ValueError("empty timestamp")
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    value, leap = _LEAP_SECOND.subn(r"\g<1>59", value, count=1)
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp() + leap
