"""The files of a `--state-dir`: the lock, the checkpoint and the command log.

    DIR/lock         flock-ed by the process using DIR, for its whole life (holds its pid)
    DIR/checkpoint   the whole state at the start of log generation N (absent at first)
    DIR/log.N        the command log since that checkpoint (`wal.py`)

The lock is `fcntl.flock`: the kernel releases it when its process ends however it ends, so a
`kill -9` never leaves a stale lock behind, and a second process gets a clear refusal.

A checkpoint is written next to the old one, fsynced, renamed over it and the directory fsynced,
so at every moment DIR holds either the old checkpoint with its log or the new one with its
(empty) log, and a crash in between loses nothing. A checkpoint names its log generation; logs
of other generations are leftovers of a compaction that a crash interrupted, and are removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import zlib
from pathlib import Path

from mockserver.core.errors import StateDirError

CHECKPOINT_MAGIC = b"mockserver-checkpoint/1\n"
_HEAD = struct.Struct(">QI")  # log generation, CRC-32 of the data


class StateDir:
    """An open state directory: locked by this process until `close`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.mkdir(parents=True, exist_ok=True)
            self._lock = os.open(path / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise StateDirError(str(path), f"cannot use this state directory: {error}") from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._lock, 32, 0).decode("ascii", "replace").strip()
            os.close(self._lock)
            raise StateDirError(
                str(path),
                f"another mockserver process (pid {holder or 'unknown'}) is using this state "
                "directory; stop it, or give this one another --state-dir",
            ) from None
        os.ftruncate(self._lock, 0)
        os.pwrite(self._lock, f"{os.getpid()}\n".encode(), 0)

    def close(self) -> None:
        """Release the lock (the kernel does it anyway when the process ends)."""
        with contextlib.suppress(OSError):
            os.close(self._lock)

    def log_path(self, generation: int) -> Path:
        return self.path / f"log.{generation}"

    def checkpoint(self) -> tuple[int, bytes | None]:
        """(log generation, checkpoint data): (0, None) before the first compaction."""
        path = self.path / "checkpoint"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return 0, None
        except OSError as error:
            raise StateDirError(str(path), f"cannot read the checkpoint: {error}") from None
        head = len(CHECKPOINT_MAGIC) + _HEAD.size
        if not data.startswith(CHECKPOINT_MAGIC) or len(data) < head:
            raise StateDirError(str(path), "not a mockserver checkpoint of this version")
        generation, crc = _HEAD.unpack_from(data, len(CHECKPOINT_MAGIC))
        body = data[head:]
        if zlib.crc32(body) != crc:
            raise StateDirError(str(path), "the checkpoint is damaged (its checksum differs)")
        return generation, body

    def write_checkpoint(self, generation: int, data: bytes) -> None:
        """Make `data` the checkpoint that log `generation` follows, atomically and durably."""
        path = self.path / "checkpoint"
        temporary = self.path / "checkpoint.tmp"
        head = CHECKPOINT_MAGIC + _HEAD.pack(generation, zlib.crc32(data))
        with temporary.open("wb") as file:
            file.write(head)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
        self.sync_directory()

    def sync_directory(self) -> None:
        """fsync the directory, so renames and new files in it survive a power loss."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def remove_other_logs(self, generation: int) -> None:
        """Delete logs (and a half-written checkpoint) that generation `generation` replaced."""
        keep = self.log_path(generation).name
        for entry in self.path.iterdir():
            stale = entry.name.startswith("log.") and entry.name != keep
            if stale or entry.name == "checkpoint.tmp":
                entry.unlink(missing_ok=True)
