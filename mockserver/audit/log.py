"""One audit event (`AuditEvent`), how events are serialized and hashed, and the compact store
of a seeded history.

Every API write makes one `AuditEvent`; its fields are `Final`: mypy holds them read-only.

A large seed's history is half a million events: kept as served bytes and objects it took over
a GiB. A `SeededLog` keeps what filters read in columns (times in an `array`, type, actor and
resource as shared strings, the ids in one string, the SHA-256 digests in one `bytearray`) and
an index from resource id to positions; the bytes are rendered again when served, from the
same data (`data_of`, a replay of the seed) and the same serializer that hashed them.
"""

from __future__ import annotations

import functools
import hashlib
from array import array
from collections.abc import Callable, Mapping
from typing import Any, Final, cast, final

import orjson

from mockserver.core.clock import format_ts

GENESIS = "0" * 64
ID_WIDTH = 28  # "evt_" and 24 characters
RENDERED_KEPT = 2048  # recent renderings kept per chain: bounded memory, repeat reads cheap


def canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON for float-free values."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def halves(
    seq: int,
    event_id: str,
    type: str,
    actor: str,
    at: int,
    resource_id: str,
    data: Mapping[str, Any],
    prev_hash: str,
) -> tuple[bytes, bytes]:
    """The canonical event without `hash`, in the two halves around where `hash` sorts (between
    "data" and "id")."""
    head = canonical({"actor": actor, "at": format_ts(at), "data": data})[:-1]
    tail = canonical(
        {
            "id": event_id,
            "object": "audit_event",
            "prev_hash": prev_hash,
            "resource_id": resource_id,
            "seq": seq,
            "type": type,
        }
    )[1:]
    return head, tail


def digest(head: bytes, tail: bytes) -> bytes:
    """The SHA-256 of the event without `hash`: what its `hash` is the hex of."""
    return hashlib.sha256(b"".join((head, b",", tail))).digest()


def served_bytes(head: bytes, tail: bytes, digest: bytes) -> bytes:
    """The event as served, `hash` spliced in. Joining yields bytes of exactly their size:
    orjson (3.12 and later) returns buffers several KiB larger than their content."""
    return b"".join((head, b',"hash":"', digest.hex().encode(), b'",', tail))


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


class SeededLog:
    """The seeded events of one chain: immutable, shared by every reset of the store."""

    __slots__ = (
        "_head",
        "_pending",
        "_related",
        "actors",
        "at",
        "data_of",
        "digests",
        "ids",
        "index",
        "render",
        "resources",
        "types",
    )

    def __init__(self, data_of: Callable[[int], Mapping[str, Any]]) -> None:
        self.data_of = data_of  # the `data` of the event at a position
        self.at = array("q")
        self.types: list[str] = []
        self.actors: list[str] = []
        self.resources: list[str] = []
        self.ids = ""  # ID_WIDTH characters an event
        self.digests = bytearray()  # 32 bytes an event
        self.index: dict[str, array[int]] = {}  # resource id -> positions, ascending
        self._head = GENESIS
        self._pending: list[str] = []
        self._related: list[tuple[str, ...]] = []  # until `seal` indexes them
        # The events served lately (the newest pages, mostly) are kept rendered.
        self.render = functools.lru_cache(maxsize=RENDERED_KEPT)(self._render)

    def __len__(self) -> int:
        return len(self.at)

    @property
    def head(self) -> str:
        return self._head

    def add(
        self,
        event_id: str,
        type: str,
        actor: str,
        at: int,
        resource_id: str,
        related: tuple[str, ...],
        data: Mapping[str, Any],
    ) -> None:
        """Hash and store the next event (`seal` once all are added)."""
        position = len(self.at)
        head, tail = halves(position + 1, event_id, type, actor, at, resource_id, data, self._head)
        sha = digest(head, tail)
        self._head = sha.hex()
        if len(event_id) != ID_WIDTH:
            raise ValueError(f"seeded event ids are {ID_WIDTH} characters: {event_id!r}")
        self._pending.append(event_id)
        self.at.append(at)
        self.types.append(type)  # types are literals, actors the seed's: shared strings
        self.actors.append(actor)
        self.resources.append(resource_id)
        self.digests += sha
        self._related.append(related)

    def seal(self) -> None:
        """Join the ids added into one string and index the events by resource id. Done after
        the history's scratch objects are freed, so the index's small arrays do not sit among
        them and keep their memory from being returned."""
        self.ids += "".join(self._pending)
        self._pending = []
        index = self.index
        for position, (resource_id, related) in enumerate(
            zip(self.resources, self._related, strict=True)
        ):
            positions = index.get(resource_id)
            if positions is None:
                positions = index[resource_id] = array("I")
            positions.append(position)
            for rid in related:
                positions = index.get(rid)
                if positions is None:
                    index[rid] = array("I", (position,))
                elif positions[-1] != position:  # an id named twice is matched once
                    positions.append(position)
        self._related = []

    def state(self) -> tuple[object, ...]:
        """The sealed log's columns, index and head: what `restore` rebuilds it from."""
        return (
            self.at,
            self.types,
            self.actors,
            self.resources,
            self.ids,
            self.digests,
            self.index,
            self._head,
        )

    @classmethod
    def restore(
        cls, data_of: Callable[[int], Mapping[str, Any]], state: tuple[object, ...]
    ) -> SeededLog:
        """A sealed log from `state` (read back from the seed cache); ValueError if it is not
        the shape `state` gives."""
        at, types, actors, resources, ids, digests, index, head = state
        count = len(at) if isinstance(at, array) and at.typecode == "q" else -1
        columns = (types, actors, resources)
        if (
            count < 0
            or not all(type(column) is list and len(column) == count for column in columns)
            or not (type(ids) is str and len(ids) == ID_WIDTH * count)
            or not (type(digests) is bytearray and len(digests) == 32 * count)
            or type(index) is not dict
            or not (type(head) is str and len(head) == 64)
        ):
            raise ValueError("not a sealed seeded log")
        log = cls(data_of)
        log.at = cast("array[int]", at)
        log.types, log.actors, log.resources = cast("tuple[list[str], ...]", columns)
        log.ids, log.digests, log._head = ids, digests, head
        log.index = cast("dict[str, array[int]]", index)
        return log

    def event_id(self, position: int) -> str:
        return self.ids[ID_WIDTH * position : ID_WIDTH * (position + 1)]

    def hash(self, position: int) -> str:
        return self.digests[32 * position : 32 * (position + 1)].hex()

    def _render(self, position: int) -> bytes:
        """The served bytes of the event at `position`, as they were hashed."""
        prev = self.hash(position - 1) if position else GENESIS
        head, tail = halves(
            position + 1,
            self.event_id(position),
            self.types[position],
            self.actors[position],
            self.at[position],
            self.resources[position],
            self.data_of(position),
            prev,
        )
        return served_bytes(head, tail, bytes(self.digests[32 * position : 32 * (position + 1)]))
