"""A sandbox's named snapshots (engine/snapshots/ saves and restores them): each one's file and
when it was taken."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mockserver.core.clock import format_ts


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One named snapshot: its file's bytes and when (on the mock clock) it was taken."""

    name: str
    created_at: int
    data: bytes

    @property
    def size(self) -> int:
        """The bytes of its file (`download`)."""
        return len(self.data)

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "created_at": format_ts(self.created_at), "bytes": self.size}


@dataclass(slots=True)
class Snapshots:
    """The named snapshots of a sandbox (kept by a reset)."""

    named: dict[str, Snapshot] = field(default_factory=dict)
    seed_fingerprint: str | None = None  # see `file.seed_fingerprint`
    # An account sandbox's: the named snapshots of its server (the server's own and every
    # account sandbox's), whose limits its own count towards. None: a server's own.
    server: Callable[[], list[Snapshots]] | None = None
