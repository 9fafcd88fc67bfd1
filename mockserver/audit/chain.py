"""The hash-chained audit log: one chain per (account, environment, region).

An event is served as `{id, object, type, actor, at, resource_id, data, seq, prev_hash, hash}`.
`hash` is the lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of the event without
its `hash` field; `prev_hash` of the first event is 64 zeros. Events hold no floats and metadata
keys stay in the Basic Multilingual Plane, so sorted-key compact JSON (orjson here, or Python's
`json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)`) is exactly JCS.

A chain is the seeded history of its world (a `SeededLog`, shared by every reset and rendered
on demand) followed by the events written since, each kept as its served bytes. Filters read
compact columns and an index of resource ids, never the bytes.
"""

from __future__ import annotations

import hashlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

import orjson

from mockserver.audit.log import (
    GENESIS,
    AuditEvent,
    SeededLog,
    canonical,
    digest,
    halves,
    served_bytes,
)
from mockserver.core.clock import parse_ts
from mockserver.core.cursors import CursorCodec
from mockserver.core.errors import ValidationError

__all__ = [
    "EMPTY_LOG",
    "GENESIS",
    "SYSTEM",
    "AuditChain",
    "SeededLog",
    "canonical",
    "first_broken_link",
]

SYSTEM = "system"
EMPTY_LOG = SeededLog(lambda position: {})


class AuditChain:
    """An append-only list of events whose hashes link each to the one before.

    `base` is the seeded part, or a function that builds it on first need (the seeded history
    of a large seed takes seconds, and most worlds are read long before their audit log).
    """

    __slots__ = ("_base", "_index", "_load", "_overrides", "_source", "_tail")

    def __init__(self, base: SeededLog | Callable[[], SeededLog] | None = None) -> None:
        self._base = base if isinstance(base, SeededLog) else EMPTY_LOG
        self._load = base if callable(base) and not isinstance(base, SeededLog) else None
        self._source = self._load  # what builds the seeded part, kept once it has
        self._tail: list[AuditEvent] = []  # written since the seed, oldest first
        self._index: dict[str, list[int]] = {}  # resource id -> positions in _tail
        self._overrides: dict[int, bytes] = {}  # seeded bytes replaced (tests corrupt a chain)

    @property
    def source(self) -> Callable[[], SeededLog] | None:
        """What builds the seeded part (None: the chain has none), built or not."""
        return self._source

    @property
    def overrides(self) -> dict[int, bytes]:
        """Seeded events' bytes replaced by `replace` (do not modify)."""
        return self._overrides

    @property
    def index(self) -> dict[str, list[int]]:
        """Resource id -> positions in `tail` of the events that name it (do not modify)."""
        return self._index

    @classmethod
    def restored(
        cls,
        source: Callable[[], SeededLog] | None,
        tail: list[AuditEvent],
        index: dict[str, list[int]],
        overrides: dict[int, bytes],
    ) -> AuditChain:
        """A chain as a snapshot saved it: `source` (its seeded part, built on first need),
        the events written since, their index and the replaced seeded bytes."""
        chain = cls(source)
        chain._tail, chain._index, chain._overrides = tail, index, overrides
        return chain

    @property
    def base(self) -> SeededLog:
        if self._load is not None:
            self._base, self._load = self._load(), None
        return self._base

    def __len__(self) -> int:
        return len(self.base) + len(self._tail)

    @property
    def written(self) -> bool:
        """Whether an event was appended or replaced since the chain was made."""
        return bool(self._tail or self._overrides)

    @property
    def head(self) -> str:
        return self._tail[-1].hash if self._tail else self.base.head

    @property
    def events(self) -> EventsView:
        """The events as a sequence of `AuditEvent` (made on access, for the inspector)."""
        return EventsView(self)

    def append(
        self,
        *,
        event_id: str,
        type: str,
        actor: str,
        at: int,
        resource_id: str,
        related: Iterable[str],
        data: Mapping[str, Any],
    ) -> AuditEvent:
        """Write the next event, linked to the current head."""
        base, tail = self.base, self._tail
        position = len(tail)
        seq = len(base.at) + position + 1
        prev = tail[-1].hash if tail else base.head
        head, rest = halves(seq, event_id, type, actor, at, resource_id, data, prev)
        sha = digest(head, rest)
        event = AuditEvent(
            seq=seq,
            id=event_id,
            type=type,
            actor=actor,
            at=at,
            resource_id=resource_id,
            hash=sha.hex(),
            raw=served_bytes(head, rest, sha),
        )
        tail.append(event)
        index = self._index
        for rid in (resource_id, *related):
            positions = index.get(rid)
            if positions is None:
                index[rid] = [position]
            elif positions[-1] != position:  # an id named twice is matched once
                positions.append(position)
        return event

    @property
    def tail(self) -> list[AuditEvent]:
        """The events written since the seed, oldest first (do not modify)."""
        return self._tail

    def raw(self, position: int) -> bytes:
        """The served bytes of the event at `position` (0 is seq 1)."""
        base = self.base
        if position >= len(base):
            return self._tail[position - len(base)].raw
        if self._overrides and position in self._overrides:
            return self._overrides[position]
        return base.render(position)

    def fields(self, position: int) -> tuple[int, str, str]:
        """(at, actor, type) of an event: what the time, actor and type filters read."""
        base = self.base
        if position >= len(base):
            event = self._tail[position - len(base)]
            return event.at, event.actor, event.type
        return base.at[position], base.actors[position], base.types[position]

    def event(self, position: int) -> AuditEvent:
        base = self.base
        if position >= len(base):
            return self._tail[position - len(base)]
        return AuditEvent(
            seq=position + 1,
            id=base.event_id(position),
            type=base.types[position],
            actor=base.actors[position],
            at=base.at[position],
            resource_id=base.resources[position],
            hash=base.hash(position),
            raw=self.raw(position),
        )

    def replace(self, position: int, event: AuditEvent) -> None:
        """Store other bytes for an event: how tests corrupt a chain for the inspector."""
        base = self.base
        if position >= len(base):
            self._tail[position - len(base)] = event
        else:
            self._overrides[position] = event.raw

    def positions(self, resource_id: str | None, stop: int) -> Iterator[int]:
        """Positions below `stop`, newest first: all, or those `resource_id` matches (the
        event's resource or one of its parents)."""
        if resource_id is None:
            return iter(range(stop - 1, -1, -1))
        return self._matching(resource_id, stop)

    def _matching(self, resource_id: str, stop: int) -> Iterator[int]:
        base = self.base
        offset = len(base)
        tail = self._index.get(resource_id) or []
        for i in range(bisect_left(tail, stop - offset) - 1, -1, -1):
            yield offset + tail[i]
        seeded = base.index.get(resource_id, array("I"))
        for i in range(bisect_left(seeded, stop) - 1, -1, -1):
            yield seeded[i]


class EventsView(Sequence[AuditEvent]):
    """A chain's events as a read (and, for tests, write) sequence."""

    __slots__ = ("_chain",)

    def __init__(self, chain: AuditChain) -> None:
        self._chain = chain

    def __len__(self) -> int:
        return len(self._chain)

    @overload
    def __getitem__(self, index: int) -> AuditEvent: ...
    @overload
    def __getitem__(self, index: slice) -> list[AuditEvent]: ...
    def __getitem__(self, index: int | slice) -> AuditEvent | list[AuditEvent]:
        size = len(self._chain)
        if isinstance(index, slice):
            return [self._chain.event(i) for i in range(size)[index]]
        return self._chain.event(range(size)[index])  # IndexError past either end

    def __iter__(self) -> Iterator[AuditEvent]:
        return (self._chain.event(i) for i in range(len(self._chain)))

    def __setitem__(self, index: int, event: AuditEvent) -> None:
        self._chain.replace(range(len(self._chain))[index], event)


def first_broken_link(served: Iterable[Mapping[str, Any]]) -> int | None:
    """Index of the first event (oldest first) whose hash or link does not verify, else None."""
    prev = GENESIS
    for index, event in enumerate(served):
        body = {k: v for k, v in event.items() if k != "hash"}
        digest = hashlib.sha256(canonical(body)).hexdigest()
        if event.get("prev_hash") != prev or event.get("hash") != digest:
            return index
        prev = digest
    return None


def _bound(query: Mapping[str, str], name: str) -> int | None:
    raw = query.get(name)
    if raw is None:
        return None
    try:
        return int(parse_ts(raw))
    except (ValueError, OverflowError):
        raise ValidationError(
            f"'{name}' must be an ISO 8601 timestamp or date (got '{raw[:60]}').", param=name
        ) from None


def listing(
    chain: AuditChain, query: Mapping[str, str], cursors: CursorCodec, limit: int
) -> tuple[list[bytes], bool, str | None]:
    """A page of events newest first, filtered by resource, time bounds, actor and type: their
    served bytes, whether more follow, and the cursor of the next page."""
    resource_id = query.get("resource_id")
    since = _bound(query, "since")
    until = _bound(query, "until")
    actor = query.get("actor")
    type_ = query.get("type")
    cursor = query.get("cursor")
    before = cursors.decode(cursor) if cursor is not None else None
    base, tail = chain.base, chain.tail
    seeded = len(base)
    size = seeded + len(tail)
    # A cursor holds the seq of the last event served; seq n sits at position n - 1.
    stop = size if before is None else max(0, min(before - 1, size))
    at_of, actors, types = base.at, base.actors, base.types
    page: list[int] = []
    has_more = False
    for position in chain.positions(resource_id, stop):
        if position < seeded:
            at, by, kind = at_of[position], actors[position], types[position]
        else:
            event = tail[position - seeded]
            at, by, kind = event.at, event.actor, event.type
        if (
            (since is None or at >= since)
            and (until is None or at <= until)
            and (actor is None or by == actor)
            and (type_ is None or kind == type_)
        ):
            if len(page) == limit:
                has_more = True
                break
            page.append(position)
    cursor_out = cursors.encode(page[-1] + 1) if has_more else None
    return [chain.raw(p) for p in page], has_more, cursor_out


def page_bytes(events: list[bytes], has_more: bool, next_cursor: str | None) -> bytes:
    """The list envelope built around the events' served bytes."""
    tail = orjson.dumps({"has_more": has_more, "next_cursor": next_cursor})
    return b'{"object":"list","data":[' + b",".join(events) + b"]," + tail[1:]
