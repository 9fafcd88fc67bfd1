"""Debian's Chromium as the browser tests drive it through Playwright: where it is, how it is
started (headless, nothing fetched in the background) and how long an expectation waits."""

from __future__ import annotations

import shutil

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
