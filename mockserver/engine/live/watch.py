"""Waiting for saves of the watched files (watchfiles: inotify, FSEvents or polling), for
as long as the server runs.

The folders of the files are watched, not the files: an editor that saves by writing a
temporary file and renaming it over the old one replaces the file a watch on it would
follow. Changes come in batches (watchfiles groups them for up to `DEBOUNCE_MS`, looking every
`STEP_MS` whether more came); each changed file of a batch is applied once, as it is on disk
then. watchfiles (with the multiprocessing machinery it loads) is imported when a watch starts:
a server or test session without `--watch` never needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mockserver.engine.live.files import LiveFiles

if TYPE_CHECKING:
    from watchfiles import Change

log = logging.getLogger("mockserver")

DEBOUNCE_MS = 50  # the longest a batch of changes is grouped for
STEP_MS = 20  # how often watchfiles looks for the end of a batch
TIMEOUT_MS = 200  # the longest wait for a change before the stop event is looked at


@contextlib.asynccontextmanager
async def watching(files: LiveFiles) -> AsyncIterator[None]:
    """Follow the saves of `files` while the body runs."""
    stop = asyncio.Event()
    ready = asyncio.Event()
    task = asyncio.create_task(_follow(files, stop, ready), name="mockserver-watch")
    await ready.wait()  # the watch is set up: a save from now on is seen
    try:
        yield
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _follow(files: LiveFiles, stop: asyncio.Event, ready: asyncio.Event) -> None:
    """Apply each batch of changes; the watch set up, `ready` (set in any case, so that a
    watch that cannot start does not hold the server's start)."""
    try:
        await _batches(files, stop, ready)
    except Exception:  # a folder gone or unreadable: the server goes on, unwatched
        log.exception("mockserver: the watch of the seed and scenario files stopped")
    finally:
        ready.set()


async def _batches(files: LiveFiles, stop: asyncio.Event, ready: asyncio.Event) -> None:
    from watchfiles import awatch  # an optional part: only a watched server loads it

    folders = [str(folder) for folder in files.folders() if folder.is_dir()]
    if not folders:
        return

    def wanted(change: Change, path: str) -> bool:
        return files.concerns(Path(path))

    changes = awatch(
        *folders,
        watch_filter=wanted,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,
        recursive=False,
        yield_on_timeout=True,  # an empty batch: the watch is set up (then every timeout)
        rust_timeout=TIMEOUT_MS,
    )
    async for batch in changes:
        if not ready.is_set():
            await _apply(files.sync(), "the files as they are at the start")
            ready.set()
        for path in sorted({Path(path) for _, path in batch}):
            await _apply(files.changed(path), str(path))


async def _apply(change: Coroutine[Any, Any, None], what: str) -> None:
    """Run one change; its failure is logged and ends nothing."""
    try:
        await change
    except Exception:
        log.exception("mockserver: applying the change of %s failed", what)
