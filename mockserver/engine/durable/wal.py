"""The command log's file: framed records, appended, fsynced in groups, read back.

A log file starts with `MAGIC` (the format and its version), then records, each framed as

    length (4 bytes, big-endian) | CRC-32 of the payload (4 bytes) | payload (length bytes)

`append` queues a record; `sync(upto)` returns once every byte up to `upto` is on disk. The
queued records go to the file (opened `O_APPEND`) in one `write`, then a helper process
`fdatasync`s it (`fsync_process.py`) while the event loop keeps serving; one such flush runs at
a time, and records queued while it runs are covered by the next one, so many requests share
one write and one sync (group commit). A crash leaves at most one partial record, the last.

`read_log` gives the records back. A damaged last record is a torn tail (a crash in the middle
of its append: it was never synced, so never answered) and is cut off; a damaged record with
good data after it is damage in the middle and raises `LogDamaged`: replaying around it would
silently lose what it held.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from mockserver.engine.durable.fsync_process import FsyncProcess, sync_here

MAGIC = b"mockserver-log/1\n"
FRAME = struct.Struct(">II")  # payload length, CRC-32 of the payload
MAX_RECORD = 256 * 1024 * 1024  # a longer length field is garbage, not a record


class LogDamaged(Exception):
    """The log cannot be read back as it was written (not a torn tail)."""


class LogFailed(OSError):
    """The log could not be written: nothing that ran after the lost records is answered."""


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
    """Appends records to one log file and makes them durable in groups.

    `append` only frames a record and queues it. A flush writes the queued records with one
    `write` and has them synced by a helper process (`fsync_process.py`), while the event loop
    keeps serving. One flush runs at a time; a waiter whose record came after the running
    flush began waits for the next, which starts as soon as the running one ends and covers
    every record queued by then. A flush is started at the end of the event loop's current
    round, so the requests that round serves share it.

    A flush that fails (a full disk, an I/O error) leaves the file as it was before it (a short
    write is cut off) and fails the writer for good: the records it held ran in memory but are
    not in the log, so nothing that ran after them may be answered. Every later `append` and
    `sync` raises `LogFailed`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        size = os.fstat(self._fd).st_size
        if size == 0:
            os.write(self._fd, MAGIC)
            os.fsync(self._fd)
            size = len(MAGIC)
        self.written = size  # bytes appended: in the file or queued for it
        self.synced = size  # bytes known to be on disk
        self._in_file = size  # bytes in the file (written, maybe not yet synced)
        self._queued: list[bytes] = []
        self._running: asyncio.Future[None] | None = None  # the flush under way (or scheduled)
        self._running_upto: int | None = None  # what it covers (None: scheduled, not begun)
        self._next: asyncio.Future[None] | None = None  # the flush that follows it
        self._helper: FsyncProcess | None = None  # started by the first flush
        self.failed: LogFailed | None = None

    def append(self, payload: bytes) -> int:
        """Queue one record; the log position just after it (what `sync` waits for)."""
        if self.failed is not None:
            raise self.failed
        record = frame(payload)
        self._queued.append(record)
        self.written += len(record)
        return self.written

    async def sync(self, upto: int) -> None:
        """Return once every byte up to `upto` is on disk (`LogFailed` if it never will be)."""
        if self.synced >= upto:
            return
        if self.failed is not None:
            raise self.failed
        running = self._running
        if running is None:
            loop = asyncio.get_running_loop()
            flush = self._running = loop.create_future()
            loop.call_soon(self._begin, flush)
        elif self._running_upto is None or self._running_upto >= upto:
            flush = running
        else:
            if self._next is None:
                self._next = asyncio.get_running_loop().create_future()
            flush = self._next
        await asyncio.shield(flush)

    def _begin(self, flush: asyncio.Future[None]) -> None:
        """Start `flush`: write everything queued and ask the helper to sync it."""
        self._running = flush
        if self.failed is None:
            self._running_upto = self.written
            data = b"".join(self._queued)
            self._queued.clear()
            try:
                self._write(data)
                if self._helper is None:
                    self._helper = FsyncProcess(self._fd, self._synced)
                self._helper.request()
                return
            except OSError as error:
                self._fail(str(error))
        self._complete()

    def _synced(self, error: str | None) -> None:
        """The helper's answer to the running flush."""
        if error is None and self._running_upto is not None:
            self.synced = max(self.synced, self._running_upto)
        elif error is not None:
            self._fail(error)
        self._complete()

    def _fail(self, why: str) -> None:
        if self.failed is None:
            self.failed = LogFailed(f"{self.path} cannot be written: {why}")

    def _complete(self) -> None:
        """End the running flush (as it went) and begin the next one, if anyone waits for it."""
        done = self._running
        self._running = self._running_upto = None
        if done is not None and not done.done():
            if self.failed is None:
                done.set_result(None)
            else:
                done.set_exception(self.failed)
        following, self._next = self._next, None
        if following is not None:
            self._begin(following)

    def _write(self, data: bytes) -> None:
        """Put `data` at the end of the file, whole or not at all."""
        if not data:
            return
        try:
            done = os.write(self._fd, data)
            if done != len(data):
                raise OSError(f"a short write ({done} of {len(data)} bytes)")
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._in_file)  # no torn record in front of a later one
            raise
        self._in_file += done

    def sync_now(self) -> None:
        """Write what is queued and sync it at once, from synchronous code with no flush under
        way (start-up, a new log)."""
        if self.failed is not None:
            return  # what the failure kept out of the log stays out
        data = b"".join(self._queued)
        self._queued.clear()
        self._write(data)
        sync_here(self._fd)
        self.synced = self.written

    @property
    def size(self) -> int:
        return self.written

    def close(self) -> None:
        """Close the file and end the helper (from any thread, with no flush under way)."""
        if self._helper is not None:
            self._helper.close()
        os.close(self._fd)
