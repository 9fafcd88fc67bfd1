"""The command log's file: framed records, appended, fsynced in groups, read back.

A log file starts with `MAGIC` (the format and its version), then records, each framed as

    length (4 bytes, big-endian) | CRC-32 of the payload (4 bytes) | payload (length bytes)

`append` writes a record with one `write` to a file opened `O_APPEND`, so a crash leaves at
most one partial record, the last. `sync(upto)` returns once every byte up to `upto` is on
disk: one `fdatasync` at a time runs in a worker thread (the event loop keeps serving), and
records appended while it runs are covered by the next one, so many requests share one fsync
(group commit).

`read_log` gives the records back. A damaged last record is a torn tail (a crash in the middle
of its append: it was never synced, so never answered) and is cut off; a damaged record with
good data after it is damage in the middle and raises `LogDamaged`: replaying around it would
silently lose what it held.
"""

from __future__ import annotations

import asyncio
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"mockserver-log/1\n"
FRAME = struct.Struct(">II")  # payload length, CRC-32 of the payload
MAX_RECORD = 256 * 1024 * 1024  # a longer length field is garbage, not a record


class LogDamaged(Exception):
    """The log cannot be read back as it was written (not a torn tail)."""


@dataclass(frozen=True, slots=True)
class LogContents:
    """What a log file holds: its records, where the good data ends, and how many bytes of a
    torn last record followed it (cut off by `truncate_torn`)."""

    records: list[bytes]
    end: int
    torn: int


def frame(payload: bytes) -> bytes:
    """One record as it is written to the file."""
    return FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def read_log(path: Path) -> LogContents:
    """Every record of the log at `path`; `LogDamaged` for a foreign file or a damaged record
    that is not the last."""
    data = path.read_bytes()
    if not data.startswith(MAGIC):
        if MAGIC.startswith(data[: len(MAGIC)]) and len(data) < len(MAGIC):
            return LogContents([], len(data), 0)  # the header itself was torn: empty log
        raise LogDamaged(f"{path} is not a mockserver command log of this version")
    records: list[bytes] = []
    at = len(MAGIC)
    while at < len(data):
        problem = _problem(data, at)
        if problem is None:
            length = FRAME.unpack_from(data, at)[0]
            records.append(data[at + FRAME.size : at + FRAME.size + length])
            at += FRAME.size + length
            continue
        if _torn(data, at):
            return LogContents(records, at, len(data) - at)
        raise LogDamaged(
            f"{path}: record {len(records) + 1} (byte {at}) is damaged ({problem}) and "
            f"{len(data) - at} bytes follow it"
        )
    return LogContents(records, at, 0)


def _problem(data: bytes, at: int) -> str | None:
    """Why the record at `at` is not good, or None."""
    if len(data) - at < FRAME.size:
        return "its frame is cut short"
    length, crc = FRAME.unpack_from(data, at)
    if not 0 < length <= MAX_RECORD:
        return "its length is impossible"
    payload = data[at + FRAME.size : at + FRAME.size + length]
    if len(payload) < length:
        return "it is cut short"
    if zlib.crc32(payload) != crc:
        return "its checksum does not match"
    return None


def _torn(data: bytes, at: int) -> bool:
    """Whether the bad record at `at` is the torn tail of an append: no good record starts
    anywhere after it. (Only the last append can be partial; a good record further on means
    the damage is in the middle, even when the bad length field claims the rest of the
    file.) Zeros a file system allocated for a write that never landed are no record."""
    return all(_problem(data, p) is not None for p in range(at + 1, len(data) - FRAME.size))


def truncate_torn(path: Path, contents: LogContents) -> None:
    """Cut a torn tail off the file (and make the cut durable)."""
    if contents.torn:
        with path.open("r+b") as file:
            file.truncate(contents.end)
            os.fsync(file.fileno())


class LogWriter:
    """Appends records to one log file and makes them durable in groups."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        size = os.fstat(self._fd).st_size
        if size == 0:
            os.write(self._fd, MAGIC)
            os.fsync(self._fd)
            size = len(MAGIC)
        self.written = size  # bytes handed to the kernel
        self.synced = size  # bytes known to be on disk
        self._flushing: asyncio.Future[None] | None = None

    def append(self, payload: bytes) -> int:
        """Write one record; the file position just after it (what `sync` waits for)."""
        record = frame(payload)
        try:
            done = os.write(self._fd, record)
            if done != len(record):
                raise OSError(f"short write to {self.path} ({done} of {len(record)} bytes)")
        except OSError:
            # A full disk: cut what landed, so the next record does not follow a torn one.
            os.ftruncate(self._fd, self.written)
            raise
        self.written += done
        return self.written

    async def sync(self, upto: int) -> None:
        """Return once every byte up to `upto` is on disk. One fsync runs at a time, in a
        thread; waiters whose bytes it did not cover start the next, which covers them all."""
        while self.synced < upto:
            flushing = self._flushing
            if flushing is None:
                flushing = self._flushing = asyncio.ensure_future(self._flush())
            await asyncio.shield(flushing)

    async def _flush(self) -> None:
        target = self.written
        try:
            await asyncio.to_thread(os.fdatasync, self._fd)
            self.synced = max(self.synced, target)
        finally:
            self._flushing = None

    def sync_now(self) -> None:
        """fsync at once, from synchronous code (start-up, shutdown)."""
        os.fdatasync(self._fd)
        self.synced = self.written

    @property
    def size(self) -> int:
        return self.written

    def close(self) -> None:
        os.close(self._fd)
