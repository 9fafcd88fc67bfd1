"""One audit event, as the chain keeps it.

Every API write makes one. Its fields are `Final`: mypy holds them read-only.
"""

from __future__ import annotations

from typing import Any, Final, final


@final
class AuditEvent:
    """An immutable, hash-chained event. `raw` is the event exactly as served (JSON bytes). Events
    written through the API are kept as these; seeded ones are columns made into one on access
    (`audit_log.SeededLog`)."""

    __slots__ = ("actor", "at", "hash", "id", "raw", "resource_id", "seq", "type")

    def __init__(
        self,
        seq: int,
        id: str,
        type: str,
        actor: str,
        at: int,
        resource_id: str,
        hash: str,
        raw: bytes,
    ) -> None:
        self.seq: Final = seq
        self.id: Final = id
        self.type: Final = type
        self.actor: Final = actor
        self.at: Final = at
        self.resource_id: Final = resource_id
        self.hash: Final = hash
        self.raw: Final = raw

    def _fields(self) -> tuple[int, str, str, str, int, str, str, bytes]:
        return (
            self.seq,
            self.id,
            self.type,
            self.actor,
            self.at,
            self.resource_id,
            self.hash,
            self.raw,
        )

    def replace(self, *, raw: bytes) -> AuditEvent:
        """The same event with other served bytes: how tests corrupt a chain."""
        return AuditEvent(
            self.seq, self.id, self.type, self.actor, self.at, self.resource_id, self.hash, raw
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AuditEvent):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = ("seq", "id", "type", "actor", "at", "resource_id", "hash", "raw")
        values: tuple[Any, ...] = self._fields()
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, values, strict=True))
        return f"AuditEvent({shown})"
