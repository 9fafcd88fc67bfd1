"""What `POST /_mock/accounts` asks for, checked, and the identity a name gives an account.

`{"region"?: "us" | "eu", "name"?: str, "clock"?: {"mode": "frozen" | "real",
"start_time"?: RFC 3339}}`. An account with a `name` draws its id, keys and every later id from
a stream seeded by the server's random seed and its creation body (`identity_seed`), so it is
the same account whatever else the server holds; one without draws them from the server's
account stream, in creation order, as every account did before accounts had names.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from mockserver.core.clock import format_ts, parse_ts
from mockserver.core.errors import ValidationError
from mockserver.domain import validation as v
from mockserver.domain.accounts import NAME_MAX
from mockserver.domain.models import REGIONS

CLOCK_MODES = ("frozen", "real")


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """An account's own clock: frozen or real, starting at `start` (Unix seconds); `given`:
    whether the body named the start time (part of a named account's identity)."""

    mode: str
    start: float
    given: bool = True

    def as_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "start_time": format_ts(self.start)}

    def identity(self) -> dict[str, Any]:
        """The clock as the creation body gave it."""
        return {"mode": self.mode, "start_time": format_ts(self.start) if self.given else None}


@dataclass(frozen=True, slots=True)
class AccountSpec:
    """A creation body, checked, with its defaults filled in."""

    region: str
    name: str | None
    clock: ClockSpec | None

    def as_json(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "name": self.name,
            "clock": None if self.clock is None else self.clock.as_json(),
        }

    def identity_seed(self, random_seed: int) -> int:
        """The seed of a named account's id streams: the server's random seed and the creation
        body, nothing else (a start time the body left out is not part of it)."""
        clock = None if self.clock is None else self.clock.identity()
        fields = {"region": self.region, "name": self.name, "clock": clock}
        body = orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
        digest = hashlib.sha256(f"{random_seed}:account:".encode() + body).digest()
        return int.from_bytes(digest[:8], "big") >> 1


def parse_spec(
    body: dict[str, Any], default_start: float, real_start: float | None = None
) -> AccountSpec:
    """The creation body checked (422 with `param`); `default_start`: where an own frozen
    clock starts when the body gives no `start_time` (the server clock's start time, so a
    named account is the same whenever it is made), `real_start` an own real one (the server
    clock's time now; `default_start` if not given)."""
    region = v.choice(body.get("region", "us"), "region", REGIONS)
    name = body.get("name")
    if name is not None:
        name = v.string(name, "name", max_len=NAME_MAX)
    raw = body.get("clock")
    clock = None if raw is None else parse_clock(raw, default_start, real_start)
    return AccountSpec(region, name, clock)


def parse_clock(raw: Any, default_start: float, real_start: float | None = None) -> ClockSpec:
    if not isinstance(raw, dict):
        raise ValidationError(
            "'clock' must be an object of 'mode' and an optional 'start_time'.", param="clock"
        )
    unknown = sorted(set(raw) - {"mode", "start_time"})
    if unknown:
        raise ValidationError(
            f"'clock' has an unknown field '{unknown[0][:64]}'.", param=f"clock.{unknown[0][:64]}"
        )
    mode = v.choice(v.required(raw, "mode", param="clock.mode"), "clock.mode", CLOCK_MODES)
    text = raw.get("start_time")
    if text is None:
        implied = real_start if mode == "real" and real_start is not None else default_start
        return ClockSpec(mode, implied, given=False)
    start: float | None = None
    if isinstance(text, str):
        try:
            start = parse_ts(text)
        except (ValueError, OverflowError):
            start = None
    if start is None:
        raise ValidationError(
            "'clock.start_time' must be an RFC 3339 timestamp.", param="clock.start_time"
        )
    return ClockSpec(mode, start)
