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

A request's turn with its key is decided in two steps around the reading of its body: `hold`
refuses a bad or repeated key (400) or a key in flight (409) and claims a free key at once, so a
retry sent while this body is still arriving is refused as in flight rather than run twice;
`settle`, given the body, refuses a different payload (409), gives the stored response to
answer again, or lets the request run holding its key. `answered` stores what it answered, and
`release` lets the key go if it never answered. No await falls between a lookup and its claim,
so concurrent requests on the one event loop cannot both run a key.

A **stored response** is one bytes object laid out like HTTP/1.1 (`pack_response`: the status,
the header lines `stored_headers` keeps, a blank line, the body): one allocation of exactly its
size, and nothing for the collector to walk. The first request's record also holds a summary
rather than its body (`summarise`): its method, routed region and path, and a CRC-32 of each
top-level member of its JSON body, so the 409 of a different payload names what `differs`.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections import deque
from collections.abc import Callable
from typing import Any, Final, final

import orjson

from mockserver.core.config import IDEMPOTENCY_RECORDS
from mockserver.core.errors import BadRequest, Conflict
from mockserver.domain.auth import Principal, require_scope

RETENTION = 24 * 3600  # seconds of mock time
CAPACITY = IDEMPOTENCY_RECORDS  # kept results per (account, environment); oldest dropped first
EXPIRE_BATCH = 4  # expired records dropped per lookup at most: more than one arrives per lookup
MAX_KEY_LENGTH = 255
HEADER = "Idempotency-Key"

Scope = str  # what a key is unique within: see `scope_of`
StoredResponse = bytes  # see `pack_response`
HeaderLines = list[tuple[bytes, bytes]]  # (name lowercase, value), in the order sent

# The headers a stored response holds, each at most once: the mock's own (the operation's, a
# deprecation's, its request id). Anything else on the first answer (a scenario rule's extra
# headers) is not answered again, so a stored response, and a snapshot file's, can hold nothing
# else (`check_stored`).
_STORED = frozenset(
    (b"content-type", b"content-length", b"x-request-id", b"deprecation", b"sunset", b"link")
)
_REQUEST_ID = re.compile(rb"req_[A-Za-z0-9]{1,64}")
_VISIBLE = re.compile(rb"[\x20-\x7e]*")
_LENGTH = 4  # bytes of each length prefix of a summary
_DIGEST = 4  # a CRC-32 of a summarised member: enough to tell members apart in a diagnostic


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


def fingerprint_and_value(method: str, region: str, path: str, body: bytes) -> tuple[bytes, Any]:
    """A digest of what the request asks for, and the body's JSON value (NOT_JSON if it is not
    JSON: the handler of a keyed request need not parse it again). A JSON body is canonicalised
    (sorted keys, no whitespace), so key order and formatting do not matter; any other body
    counts as bytes."""
    try:
        value = orjson.loads(body)
        content = b"json:" + _canonical(value)
    except orjson.JSONDecodeError:
        value, content = NOT_JSON, b"raw:" + body
    return hashlib.sha256(f"{method} {region} {path}\n".encode() + content).digest(), value


NOT_JSON: Final = object()  # `fingerprint_and_value` of a body that is not JSON


def _canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON for float-free values (as the audit chain's)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _field(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return len(data).to_bytes(_LENGTH, "big") + data


def _digest(data: bytes) -> bytes:
    return zlib.crc32(data).to_bytes(_DIGEST, "big")


def summarise(method: str, region: str, path: str, value: Any, raw: bytes, is_json: bool) -> bytes:
    """What a record holds of its first request to say later what differs: `value` is the
    parsed body (`is_json`), `raw` its bytes."""
    parts = [_field(f"{method}\n{region}\n{path}")]
    if type(value) is dict:
        for name, member in value.items():
            pointer = "/" + str(name).replace("~", "~0").replace("/", "~1")
            parts.append(_field(pointer))
            parts.append(_digest(_canonical(member)))
    else:
        whole = _canonical(value) if is_json else b"raw:" + raw
        parts.append(_field(""))
        parts.append(_digest(whole))
    return b"".join(parts)


def _unpack_summary(summary: bytes) -> tuple[str, dict[str, bytes]]:
    """(method, region and path as one line each, member pointer -> digest)."""
    where = ""
    members: dict[str, bytes] = {}
    at = 0
    while at < len(summary):
        size = int.from_bytes(summary[at : at + _LENGTH], "big")
        at += _LENGTH
        text = summary[at : at + size].decode("utf-8", "surrogatepass")
        at += size
        if not at - size - _LENGTH:
            where = text
        else:
            members[text] = summary[at : at + _DIGEST]
            at += _DIGEST
    return where, members


def differs(first: bytes, second: bytes) -> list[str]:
    """`method`, `path` (the routed region counts as part of it) and the JSON Pointers of the
    body members that are not the same in the two summaries, in that order, for two requests
    known to differ (their fingerprints do): if no part of the summaries tells them apart (a
    digest collision), the whole body differs, `""`."""
    where_a, a = _unpack_summary(first)
    where_b, b = _unpack_summary(second)
    method_a, _, place_a = where_a.partition("\n")
    method_b, _, place_b = where_b.partition("\n")
    out: list[str] = []
    if method_a != method_b:
        out.append("method")
    if place_a != place_b:
        out.append("path")
    out.extend(sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name)))
    return out or [""]


def stored_headers(headers: HeaderLines, body: bytes) -> HeaderLines:
    """The headers of an answer that a replay sends again: the mock's own, once each, with
    values it writes (a JSON content type, the body's length, a request id, visible ASCII)."""
    stored: HeaderLines = []
    seen: set[bytes] = set()
    for name, value in headers:
        if name in _STORED and name not in seen and _own_value(name, value, body):
            stored.append((name, value))
            seen.add(name)
    return stored


def _own_value(name: bytes, value: bytes, body: bytes) -> bool:
    if name == b"content-type":
        return value == b"application/json"
    if name == b"content-length":
        return value == b"%d" % len(body)
    if name == b"x-request-id":
        return _REQUEST_ID.fullmatch(value) is not None
    return _VISIBLE.fullmatch(value) is not None


def pack_response(status: int, headers: HeaderLines, body: bytes) -> StoredResponse:
    """A response to store: the status, the header lines, a blank line, then the body."""
    lines = [b"%d" % status, *[name + b": " + value for name, value in headers]]
    head = b"\r\n".join(lines) + b"\r\n\r\n"
    return head + body if body else head


def unpack_response(stored: StoredResponse) -> tuple[int, HeaderLines, bytes]:
    """(status, headers, body) of `pack_response`. A header line is never empty and never
    holds a line break, so the first blank line ends the head, and a name holds no colon."""
    head, _, body = stored.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = [(name, value) for name, _, value in (line.partition(b": ") for line in lines)]
    return int(status), headers, body


def check_stored(stored: StoredResponse) -> str | None:
    """What is wrong with a stored response read from a file (None: nothing): it must be one
    the mock stores, a stored status and only the headers `stored_headers` keeps. The messages
    are those snapshot files have always been refused with."""
    head, blank, _ = stored.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0]
    if not blank or not status_line.isdigit() or len(status_line) != 3:
        return "is not a kept answer: a status, header lines, a blank line, then the body"
    status, headers, body = unpack_response(stored)
    if not is_kept(status):
        return f"has status {status}, which is never kept"
    kept = stored_headers(headers, body)
    if kept != headers:
        odd = next(name for name, value in headers if (name, value) not in kept)
        shown = odd.decode("ascii", "replace")[:64]
        return f"has a header the mock does not keep, or not as the mock writes it: {shown!r}"
    return None


@final
class Record:
    """One key's request: in flight until `response` is set by `complete`. `fingerprint` is
    known once the body has been read; `permission` is the scope the operation required,
    checked again on replay; `response` is the stored response; `summary` what the 409 of a
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
        self.summary = b""  # what `explain` needs of the first request (`summarise`)


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


@final
class Hold:
    """A POST's key while its body arrives and it runs: the key, its scope, and the record this
    request holds (None: the key had a stored response, looked at again once the body is in;
    or the key was let go)."""

    __slots__ = ("key", "record", "scope")

    def __init__(self, key: str, scope: Scope, record: Record | None) -> None:
        self.key = key
        self.scope = scope
        self.record = record


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

    def hold(
        self, principal: Principal, keys: list[str], oversized: bool, now: float
    ) -> Hold | None:
        """Before the body: 400 for a bad or repeated key, 409 for a key in flight; claim a
        free key. None: run the request as if it had no key, because its declared body is
        `oversized` (the operation answers 413 without reading it)."""
        if len(keys) > 1:
            raise BadRequest(f"The {HEADER} header was given more than once.", param=HEADER)
        key = check_key(keys[0])
        if oversized:
            return None
        scope = scope_of(principal.account_id, principal.environment, key)
        record = self.lookup(scope, now)
        if record is not None and not record.done:
            raise in_flight().because("idempotency", key=key, in_flight=True)
        return Hold(key, scope, self.begin(scope) if record is None else None)

    def settle(
        self,
        hold: Hold,
        principal: Principal,
        method: str,
        region: str,
        path: str,
        body: bytes,
        clock: Callable[[], float],
    ) -> tuple[Any, StoredResponse | None]:
        """With the whole body: (the body parsed as JSON, or NOT_JSON; the stored response to
        answer again, or None: the request runs holding the key). 409 for a key in flight or a
        different payload; a replay checks the scope the first request's operation needed.
        `region`: the request's routed region, or the caller's default; `clock`: the mock
        clock's `now`, read if the key must be looked up again."""
        fingerprint, value = fingerprint_and_value(method, region, path, body)
        mine = hold.record
        if mine is None:  # the key had a stored response: look again, the body took time
            record = self.lookup(hold.scope, clock())
            if record is None:
                mine = hold.record = self.begin(hold.scope)
            elif not record.done:
                raise in_flight().because("idempotency", key=hold.key, in_flight=True)
            elif record.fingerprint != fingerprint:
                mine_now = summarise(method, region, path, value, body, value is not NOT_JSON)
                raise mismatch().because(
                    "idempotency", key=hold.key, differs=differs(record.summary, mine_now)
                )
            else:
                require_scope(principal, record.permission or None)
                stored: StoredResponse = record.response
                return value, stored
        mine.fingerprint = fingerprint
        mine.summary = summarise(method, region, path, value, body, value is not NOT_JSON)
        return value, None

    def answered(
        self,
        hold: Hold,
        permission: str | None,
        status: int,
        headers: HeaderLines,
        body: bytes,
        now: float,
    ) -> None:
        """The held request answered (its headers up to `X-Request-Id`): store the response
        (its status says whether it executed) for the operation's `permission`; None: no
        operation ran (an unknown route), store nothing and let the key go."""
        record, hold.record = hold.record, None
        if record is None:
            return
        if permission is None:
            self.abandon(hold.scope, record)
            return
        record.permission = permission
        stored = pack_response(status, stored_headers(headers, body), body)
        self.complete(hold.scope, record, status, stored, now)

    def release(self, hold: Hold) -> None:
        """Let the key go if the request held it and stored nothing (it failed before it
        answered, or was cut off)."""
        record, hold.record = hold.record, None
        if record is not None:
            self.abandon(hold.scope, record)

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
