"""Debian's Chromium as the browser tests drive it through Playwright: where it is, how it is
started (headless, nothing fetched in the background) and how long an expectation waits."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_CHROMIUM = "Debian's chromium is not installed (make test installs it)"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 10_000  # the longest any expectation waits (live refresh polls once a second)
VIEWPORT = {"width": 1280, "height": 800}


@contextlib.contextmanager
def chromium_context() -> Iterator[Any]:
    """A Chromium context of a throwaway profile, its waits and Playwright's `expect` set to
    `WAIT_MS` (the caller has skipped without Playwright or Chromium)."""
    from playwright import sync_api

    assert CHROMIUM is not None
    with (
        tempfile.TemporaryDirectory(prefix="mockserver-chromium-") as profile,
        sync_api.sync_playwright() as driver,
    ):
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=ARGS, headless=True, viewport=VIEWPORT
        )
        context.set_default_timeout(WAIT_MS)
        sync_api.expect.set_options(timeout=WAIT_MS)
        yield context
        context.close()
