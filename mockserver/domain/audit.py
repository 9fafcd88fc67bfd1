"""The hash-chained audit log: one chain per (account, environment, region).

An event is served as `{id, object, type, actor, at, resource_id, data, seq, prev_hash, hash}`.
`hash` is the lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of the event without
its `hash` field; `prev_hash` of the first event is 64 zeros. Events hold no floats and metadata
keys stay in the Basic Multilingual Plane, so sorted-key compact JSON (orjson here, or Python's
`json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)`) is exactly JCS.

Each event is kept as its served bytes plus the few fields filters need, so listing is a splice
of stored bytes and a long chain stays small in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from mockserver.clock import format_ts, parse_ts
from mockserver.errors import ValidationError

from .models import AuditEvent
from .pagination import CursorCodec, newest_first

GENESIS = "0" * 64
SYSTEM = "system"


def canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON for float-free values."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


class AuditChain:
    """An append-only list of events whose hashes link each to the one before."""

    __slots__ = ("events",)

    def __init__(self, events: Iterable[AuditEvent] = ()) -> None:
        self.events: list[AuditEvent] = list(events)

    @property
    def head(self) -> str:
        return self.events[-1].hash if self.events else GENESIS

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
        seq = len(self.events) + 1
        # The canonical form sorts keys, and "hash" sorts between "data" and "id", so the event
        # is serialized once, in two halves, and the hash is spliced in between. Joining also
        # yields bytes of exactly their size: orjson (3.12 and later) returns buffers several
        # KiB larger than their content, which a long chain would keep for good.
        head = canonical({"actor": actor, "at": format_ts(at), "data": data})[:-1]
        tail = canonical(
            {
                "id": event_id,
                "object": "audit_event",
                "prev_hash": self.head,
                "resource_id": resource_id,
                "seq": seq,
                "type": type,
            }
        )[1:]
        digest = hashlib.sha256(b"".join((head, b",", tail))).hexdigest()
        event = AuditEvent(
            seq=seq,
            id=event_id,
            type=type,
            actor=actor,
            at=at,
            resource_id=resource_id,
            related=frozenset((resource_id, *related)),
            hash=digest,
            raw=b"".join((head, b',"hash":"', digest.encode(), b'",', tail)),
        )
        self.events.append(event)
        return event


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
) -> tuple[list[AuditEvent], bool, str | None]:
    """A page of events newest first, filtered by resource, time bounds, actor and type."""
    resource_id = query.get("resource_id")
    since = _bound(query, "since")
    until = _bound(query, "until")
    actor = query.get("actor")
    type_ = query.get("type")
    cursor = query.get("cursor")
    before = cursors.decode(cursor) if cursor is not None else None

    def keep(event: AuditEvent) -> bool:
        return (
            (resource_id is None or resource_id in event.related)
            and (since is None or event.at >= since)
            and (until is None or event.at <= until)
            and (actor is None or event.actor == actor)
            and (type_ is None or event.type == type_)
        )

    page, has_more = newest_first(chain.events, limit=limit, before=before, keep=keep)
    return page, has_more, cursors.encode(page[-1].seq) if has_more else None


def page_bytes(events: list[AuditEvent], has_more: bool, next_cursor: str | None) -> bytes:
    """The list envelope built around the events' stored bytes."""
    tail = orjson.dumps({"has_more": has_more, "next_cursor": next_cursor})
    return b'{"object":"list","data":[' + b",".join(e.raw for e in events) + b"]," + tail[1:]
