"""fdatasync in a helper process, for the command log's group commit.

Why a process: a thread that runs `fdatasync` must take the GIL back after each call, and
under load the event loop's thread holds it nearly all the time, so every flush paid for
several GIL hand-offs (futex wake-ups and context switches on the loop's thread). A helper
process has its own interpreter: the loop writes the queued records itself, sends the helper
one byte over a pipe, and reads the helper's answer from a pipe it watches like any socket.
`fdatasync` works on the file, not the descriptor, so the helper's call covers what the
server wrote.

The helper is a few lines of Python run with `-I -S` (no site, no user paths). It ends when
its request pipe closes, which also happens when the server dies however it dies; it ignores
SIGINT, so a Ctrl-C in a terminal stops only the server, which then closes the pipe.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable

# argv: the log's descriptor, the request pipe's read end, the answer pipe's write end.
_HELPER = """\
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
sync = getattr(os, "fdatasync", os.fsync)
fd, requests, answers = map(int, sys.argv[1:])
while os.read(requests, 1):
    try:
        sync(fd)
    except OSError as error:
        os.write(answers, b"e" + os.strerror(error.errno or 0).encode()[:200] + b"\\n")
    else:
        os.write(answers, b"k")
"""

# What `sync` does in this process (start-up, a new log): fdatasync where there is one.
sync_here: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)


class FsyncProcess:
    """A helper process that syncs one file descriptor on request. `request()` asks for a
    sync of what was written so far; `on_answer(error)` runs in the event loop's thread when
    it is done (`error`: None, or why it failed). One request at a time."""

    def __init__(self, fd: int, on_answer: Callable[[str | None], None]) -> None:
        self._on_answer = on_answer
        requests_read, self._requests = os.pipe()
        self._answers, answers_write = os.pipe()
        try:
            argv = [str(fd), str(requests_read), str(answers_write)]
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _HELPER, *argv],
                pass_fds=(fd, requests_read, answers_write),
                stdin=subprocess.DEVNULL,
            )
        finally:
            os.close(requests_read)
            os.close(answers_write)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._answers, self._answered)
        self._buffer = b""

    def request(self) -> None:
        """Ask for a sync (OSError if the helper is gone)."""
        os.write(self._requests, b"s")

    def _answered(self) -> None:
        chunk = os.read(self._answers, 4096)
        if not chunk:
            self._loop.remove_reader(self._answers)
            self._on_answer("the process that syncs the log stopped")
            return
        self._buffer += chunk
        while self._buffer:
            if self._buffer[:1] == b"k":
                self._buffer = self._buffer[1:]
                self._on_answer(None)
                continue
            end = self._buffer.find(b"\n")
            if end < 0:
                return  # the rest of an error message is on its way
            message, self._buffer = (
                self._buffer[1:end].decode(errors="replace"),
                self._buffer[end + 1 :],
            )
            self._on_answer(f"fdatasync failed: {message}")

    def close(self) -> None:
        """End the helper (from any thread): its request pipe closes, so it exits."""
        os.close(self._requests)
        if self._loop.is_closed():
            os.close(self._answers)
        else:
            self._loop.call_soon_threadsafe(self._detach)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.send_signal(signal.SIGKILL)
            self._process.wait()

    def _detach(self) -> None:
        self._loop.remove_reader(self._answers)
        os.close(self._answers)
