"""The records of the command log and their bytes (the payloads `wal.py` frames).

A durable sandbox's state is the seed (or a checkpoint) plus every input it received, in the
order it received them; the ids, timestamps, hashes and signatures that follow are computed
again from the seeded streams and the mock clock. The inputs are:

- `Begin`: the first record of a log, what the state was built from (the settings that shape
  it, and the real clock's starting offset), so a log is never replayed onto another sandbox;
- `Request`: one HTTP request as the app received it, with the wall-clock reading the mock
  clock used while it ran (reads too: every request draws a request id and counts in the rate
  windows and the journal);
- `Tick`: the real clock reached a timer with no request to run it (the background ticker);
- `Outcome`: what one webhook delivery attempt found (HTTP status or error, and how long it
  took), the one input that does not come in a request. `within` is the sequence number of the
  request whose clock move awaited it, or 0 when it was committed on its own.

Each payload is a kind byte and its fields: numbers big-endian, strings and bytes as a 4-byte
length and the bytes.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import Any

_F64 = struct.Struct(">d")
_U32 = struct.Struct(">I")
_I64 = struct.Struct(">q")


@dataclass(frozen=True, slots=True)
class Begin:
    facts: dict[str, Any]  # what the state was built from; compared at every start


@dataclass(frozen=True, slots=True)
class Request:
    wall: float
    method: str
    scheme: str
    path: str
    raw_path: bytes
    query_string: bytes
    headers: tuple[tuple[bytes, bytes], ...]
    client: tuple[str, int] | None
    server: tuple[str, int] | None
    body: bytes


@dataclass(frozen=True, slots=True)
class Tick:
    wall: float


@dataclass(frozen=True, slots=True)
class Outcome:
    within: int  # the sequence number of the request that awaited it, or 0
    wall: float
    delivery_id: str
    number: int  # the attempt's number (1 for the first)
    at: int  # when the attempt started, on the mock clock
    status: int | None
    error: str | None
    duration_ms: int


Record = Begin | Request | Tick | Outcome


class RecordError(ValueError):
    """A payload that passed its checksum but does not decode (a foreign or future record)."""


class _Writer:
    __slots__ = ("parts",)

    def __init__(self, kind: bytes) -> None:
        self.parts: list[bytes] = [kind]

    def f64(self, value: float) -> None:
        self.parts.append(_F64.pack(value))

    def i64(self, value: int) -> None:
        self.parts.append(_I64.pack(value))

    def blob(self, value: bytes) -> None:
        self.parts.append(_U32.pack(len(value)))
        self.parts.append(value)

    def text(self, value: str) -> None:
        self.blob(value.encode("utf-8", "surrogateescape"))

    def address(self, value: tuple[str, int] | None) -> None:
        self.text("" if value is None else value[0])
        self.i64(-1 if value is None else value[1])

    def bytes(self) -> bytes:
        return b"".join(self.parts)


class _Reader:
    __slots__ = ("at", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 1

    def _take(self, size: int) -> bytes:
        if self.at + size > len(self.data):
            raise RecordError("a record ends in the middle of a field")
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk

    def f64(self) -> float:
        value: float = _F64.unpack(self._take(8))[0]
        return value

    def i64(self) -> int:
        value: int = _I64.unpack(self._take(8))[0]
        return value

    def blob(self) -> bytes:
        length: int = _U32.unpack(self._take(4))[0]
        return self._take(length)

    def text(self) -> str:
        return self.blob().decode("utf-8", "surrogateescape")

    def address(self) -> tuple[str, int] | None:
        host, port = self.text(), self.i64()
        return None if port < 0 else (host, port)


def encode(record: Record) -> bytes:
    """The payload of one record."""
    if isinstance(record, Request):
        w = _Writer(b"R")
        w.f64(record.wall)
        w.text(record.method)
        w.text(record.scheme)
        w.text(record.path)
        w.blob(record.raw_path)
        w.blob(record.query_string)
        w.i64(len(record.headers))
        for name, value in record.headers:
            w.blob(name)
            w.blob(value)
        w.address(record.client)
        w.address(record.server)
        w.blob(record.body)
    elif isinstance(record, Outcome):
        w = _Writer(b"A")
        w.i64(record.within)
        w.f64(record.wall)
        w.text(record.delivery_id)
        w.i64(record.number)
        w.i64(record.at)
        w.i64(-1 if record.status is None else record.status)
        w.i64(-1 if record.error is None else 1)
        w.text(record.error or "")
        w.i64(record.duration_ms)
    elif isinstance(record, Tick):
        w = _Writer(b"T")
        w.f64(record.wall)
    else:
        w = _Writer(b"B")
        w.blob(json.dumps(record.facts, sort_keys=True).encode())
    return w.bytes()


def decode(payload: bytes) -> Record:
    """The record of a payload; RecordError for a kind or a shape this version does not know."""
    kind = payload[:1]
    r = _Reader(payload)
    record: Record
    if kind == b"R":
        wall, method, scheme, path = r.f64(), r.text(), r.text(), r.text()
        raw_path, query = r.blob(), r.blob()
        headers = tuple((r.blob(), r.blob()) for _ in range(r.i64()))
        record = Request(wall, method, scheme, path, raw_path, query, headers, r.address(),
                         r.address(), r.blob())  # fmt: skip
    elif kind == b"A":
        within, wall, delivery_id, number, at = r.i64(), r.f64(), r.text(), r.i64(), r.i64()
        status, has_error, error, duration = r.i64(), r.i64(), r.text(), r.i64()
        record = Outcome(within, wall, delivery_id, number, at, None if status < 0 else status,
                         error if has_error > 0 else None, duration)  # fmt: skip
    elif kind == b"T":
        record = Tick(r.f64())
    elif kind == b"B":
        try:
            facts = json.loads(r.blob())
        except ValueError as error:
            raise RecordError(f"the log's first record does not decode: {error}") from None
        if not isinstance(facts, dict):
            raise RecordError("the log's first record is not an object")
        record = Begin(facts)
    else:
        raise RecordError(f"unknown record kind {kind!r}")
    if r.at != len(payload):
        extra = len(payload) - r.at
        raise RecordError(f"a {kind.decode('latin-1')} record has {extra} extra bytes")
    return record
