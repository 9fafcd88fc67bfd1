"""What the session's mock is made of lives as long as the session: it is built with the cyclic
collector paused and then frozen (Python's `gc.freeze`), so no collection during a test walks it;
the session's end thaws it (`gc.unfreeze`), and the process ends as it would have.

Importing the app's modules (the plugin imports testing/session.py inside `building`), building
the app and starting what serves it make a hundred and more modules and the seeded state:
hundreds of thousands of objects that live until the session ends. With the collector
running, they set off young collections while they are made and a full collection soon after,
each walking everything the process holds (pytest's, the test suite's and the mock's); every
later full collection walks them again, a good part of what the first test using
`mock_client` costs (Performance: the test-driven loop).

A freeze takes everything alive at that moment, not only the mock's: an object of the test
session made before it, which later becomes garbage held only by a reference cycle, is
reclaimed at the session's end instead of at the next collection. A process that froze objects
itself (its own `gc.freeze()`) is left alone: nothing is paused, frozen or thawed.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


class SessionHeap:
    """Pauses the collector while the session's mock is built, freezes what is alive after
    each build, and thaws it all at the session's end."""

    def __init__(self) -> None:
        self._ours = gc.get_freeze_count() == 0  # else the process manages freezing itself
        self._frozen = False

    @contextlib.contextmanager
    def building(self) -> Iterator[None]:
        """Build something that lives for the session: collector paused, then frozen."""
        if not self._ours:
            yield
            return
        enabled = gc.isenabled()
        gc.disable()
        try:
            yield
            gc.freeze()  # not after a failed build: nothing of it lives on
            self._frozen = True
        finally:
            if enabled:
                gc.enable()

    def thaw(self) -> None:
        """The session has ended: every frozen object is the collector's again."""
        if self._frozen:
            gc.unfreeze()
            self._frozen = False
