"""What a loaded scenario decides about one request or one delivery attempt, as plain values:
a forced 429 burst (`ForcedLimit`), what to do to a webhook attempt (`Fault`) and a chaos rule's
hit (`ChaosHit`). The scenario engine makes them; the authentication step, the delivery engine and
the scenario middleware act on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mockserver.scenarios.rule_parts import Respond


@dataclass(frozen=True, slots=True)
class ForcedLimit:
    """A forced 429: the window counts as full until `reset_at` (Unix seconds)."""

    rule: str
    reset_at: int
    retry_after: int  # whole seconds, at least 1
    scenario: str = ""  # the scenario of `rule`
    version: str = ""  # that scenario's version

    @property
    def touched(self) -> dict[str, str]:
        """The journal's mark of the rule that forced it."""
        return {"name": self.scenario, "version": self.version, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class Fault:
    """What the delivery engine must do to one attempt.

    fail: answer as if the receiver returned `status`; timeout: as if it did not answer within
    the delivery timeout; duplicate: deliver this attempt twice (same event id); delay: hold
    the attempt back `delay_seconds` of mock time, then deliver it.
    """

    kind: str
    rule: str
    status: int = 500
    delay_seconds: int = 0
    draw: float | None = None  # a chaos rule's draw; None for a scenario's explicit fault


@dataclass(frozen=True, slots=True)
class ChaosHit:
    """A chaos rule that hit a request: `rule` is its name, else its index in `chaos.rules`;
    `draw` the seeded draw in [0, 1) that fell under its probability."""

    rule: str
    scenario: str
    draw: float
    respond: Respond
