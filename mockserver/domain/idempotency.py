"""Idempotency keys (docs/reference/api.md, Idempotency).

A POST with an `Idempotency-Key` runs at most once per (account, environment, key). The first
request `begin`s a record, in flight until its response is known; the response is then kept
(`complete`) or the record is dropped (`abandon`). Later requests with the key find the record:
while it is in flight they are refused (409), and once complete they get its response again if
their fingerprint (method, routed region, path and parsed body) is the same, 409 otherwise.

Only the results of requests that executed are kept: 2xx, and the 404 and 409 an operation
answered. 5xx and every refusal before or instead of execution (400, 401, 403, 413, 422, 429)
are dropped, so a retry runs again. Kept results expire `RETENTION` seconds of mock time after
they were stored. Each (account, environment) keeps its results in a FIFO in completion order:
expired ones are dropped from its front as later requests of that account and environment
arrive, at most `EXPIRE_BATCH` per lookup, so a clock moved a day on spreads the freeing of a
day's records over the requests that follow instead of stalling one of them; and at most
`capacity` (`CAPACITY` unless the settings say otherwise) are kept, the oldest dropped first,
so memory is bounded whatever the clock does. A lookup checks expiry itself, so a clock set
backwards never serves a result older than the retention, and a record not yet dropped is never
served.

A kept record is one object with atomic fields under a `str` key: the collector has one object
to walk per record, and dropping it frees one.

The stored response is opaque here: the HTTP layer decides what a response is.
"""

from __future__ import annotations

import hashlib
from collections import deque
from typing import Any, Final, final

import orjson

from mockserver.audit.log import canonical
from mockserver.core.config import IDEMPOTENCY_RECORDS
from mockserver.core.errors import BadRequest, Conflict

RETENTION = 24 * 3600  # seconds of mock time
CAPACITY = IDEMPOTENCY_RECORDS  # kept results per (account, environment); oldest dropped first
EXPIRE_BATCH = 4  # expired records dropped per lookup at most: more than one arrives per lookup
MAX_KEY_LENGTH = 255
HEADER = "Idempotency-Key"

Scope = str  # what a key is unique within: see `scope_of`


def scope_of(account: str, environment: str, key: str) -> Scope:
    """The record key of `key` in (account, environment). A key is printable ASCII (no line
    break), and ids and environment names have none, so the joined string is unambiguous."""
    return f"{account}\n{environment}\n{key}"


def partition_of(scope: Scope) -> str:
    """The (account, environment) part of a record key: what the cap counts within."""
    return scope[: scope.rfind("\n")]


def is_kept(status: int) -> bool:
    """Whether a result is stored for replay: what executed, successfully or not."""
    return 200 <= status < 300 or status in (404, 409)


def check_key(key: str) -> str:
    """The key if it is 1..255 printable ASCII characters (space included), else 400."""
    if not key or len(key) > MAX_KEY_LENGTH:
        raise BadRequest(
            f"The {HEADER} header must be 1 to {MAX_KEY_LENGTH} characters long (got {len(key)}).",
            param=HEADER,
        )
    if not (key.isascii() and key.isprintable()):
        raise BadRequest(
            f"The {HEADER} header may contain only printable ASCII characters.", param=HEADER
        )
    return key


def fingerprint(method: str, region: str, path: str, body: bytes) -> bytes:
    """A digest of what the request asks for. A JSON body is canonicalised (sorted keys, no
    whitespace), so key order and formatting do not matter; any other body counts as bytes."""
    return fingerprint_and_value(method, region, path, body)[0]


def fingerprint_and_value(method: str, region: str, path: str, body: bytes) -> tuple[bytes, Any]:
    """`fingerprint`, and the body's JSON value (NOT_JSON if it is not JSON): the handler of a
    keyed request need not parse its body again."""
    try:
        value = orjson.loads(body)
        content = b"json:" + canonical(value)
    except orjson.JSONDecodeError:
        value, content = NOT_JSON, b"raw:" + body
    return hashlib.sha256(f"{method} {region} {path}\n".encode() + content).digest(), value


NOT_JSON: Final = object()  # `fingerprint_and_value` of a body that is not JSON


@final
class Record:
    """One key's request: in flight until `response` is set by `complete`. `fingerprint` is
    known once the body has been read; `permission` is the scope the operation required,
    checked again on replay; `response` is what the HTTP layer kept; `summary` what the 409 of a
    different payload says differs."""

    __slots__ = (
        "done",
        "expires_at",
        "fingerprint",
        "generation",
        "permission",
        "response",
        "scope",
        "summary",
    )

    def __init__(self, scope: Scope = "", *, generation: int = 0) -> None:
        self.scope = scope
        self.fingerprint: bytes | None = None
        self.permission: str | None = None
        self.response: Any = None
        self.expires_at = 0.0
        self.generation = generation
        self.done = False
        self.summary = b""  # what `explain` needs of the first request (idempotency_diff)


def in_flight() -> Conflict:
    """The refusal of a request whose key is held by a request still running."""
    return Conflict(
        f"A request with this {HEADER} is still being processed. Retry once it has finished.",
        param=HEADER,
    )


def mismatch() -> Conflict:
    """The refusal of a request that reuses a key for something else."""
    return Conflict(
        "This Idempotency-Key was already used with a different request (method, path or "
        "body). Use a new key for a new request.",
        param=HEADER,
    )


class IdempotencyStore:
    """The records of one server, keyed by (account, environment, key); each (account,
    environment) keeps at most `capacity` results."""

    __slots__ = ("_generation", "_kept", "_records", "capacity", "retention")

    def __init__(self, retention: int = RETENTION, capacity: int = CAPACITY) -> None:
        self.retention = retention
        self.capacity = capacity
        self._records: dict[Scope, Record] = {}
        # Per (account, environment): its kept records, in completion order. An entry whose
        # record is no longer the one under its key (expired at lookup, or the key reused) is
        # stale and skipped when it reaches the front.
        self._kept: dict[str, deque[Record]] = {}
        self._generation = 0

    def __len__(self) -> int:
        return len(self._records)

    def lookup(self, scope: Scope, now: float) -> Record | None:
        """The live record of a key (in flight or kept and unexpired), or None."""
        kept = self._kept.get(partition_of(scope))
        if kept is not None:
            self._expire(kept, now)
        record = self._records.get(scope)
        if record is not None and record.done and record.expires_at <= now:
            del self._records[scope]
            return None
        return record

    def begin(self, scope: Scope) -> Record:
        """Claim a key that has no live record: the request is now in flight."""
        record = Record(scope, generation=self._generation)
        self._records[scope] = record
        return record

    def complete(
        self, scope: Scope, record: Record, status: int, response: Any, now: float
    ) -> bool:
        """Keep the response of `record` for replay if its status says it executed, else drop
        the record so that a retry runs again; at the cap, the oldest kept result of the
        account and environment is dropped. Whether it was kept."""
        if not is_kept(status):
            self.abandon(scope, record)
            return False
        if record.generation != self._generation or self._records.get(scope) is not record:
            return False  # the mock was reset while the request ran
        record.response = response
        record.expires_at = now + self.retention
        record.done = True
        partition = partition_of(scope)
        kept = self._kept.get(partition)
        if kept is None:
            kept = self._kept[partition] = deque()
        kept.append(record)
        records = self._records
        while len(kept) > self.capacity:
            oldest = kept.popleft()
            if records.get(oldest.scope) is oldest:
                del records[oldest.scope]
        return True

    def abandon(self, scope: Scope, record: Record) -> None:
        """Drop an in-flight record (the request failed before it executed, or was cut off)."""
        if not record.done and self._records.get(scope) is record:
            del self._records[scope]

    def clear(self) -> None:
        """Forget every record (a reset of the mock); requests still running keep nothing."""
        self._records.clear()
        self._kept.clear()
        self._generation += 1

    def _expire(self, kept: deque[Record], now: float) -> None:
        """Drop up to `EXPIRE_BATCH` expired or stale records from the front of `kept`."""
        records = self._records
        for _ in range(EXPIRE_BATCH):
            if not kept:
                return
            record = kept[0]
            live = records.get(record.scope) is record
            if live and record.expires_at > now:
                return
            kept.popleft()
            if live:
                del records[record.scope]
