"""Collector settings for a serving process: `mockserver run` calls `tune_for_serving`.

Python's cyclic collector walks every tracked object of the generations it collects, and the
mock keeps all it serves in memory: a POST adds a document, an audit event and an idempotency
record that stay. With the interpreter's defaults, young collections come every 700 net
allocations and each tenth promotes survivors, so full collections (which walk everything stored)
come often and take longer the more is stored: a pause of a second once a soak has stored a few
hundred thousand documents. Three settings keep collections short, and none keeps garbage:

- start-up ends with one full collection and `gc.freeze()`: what exists then (the parsed seed,
  the app, the modules) lives as long as the process, so no later collection walks it;
- GEN0 is 2,000 instead of 700: fewer young collections, each still short;
- a young collection runs every COLLECT_EVERY requests (`PacedCollection`), whatever the
  allocation counter says. The counter is allocations minus deallocations of tracked objects:
  in a steady state where each request's new objects replace old ones (the journal ring drops
  an entry as it adds one; records expire) it hardly moves, no collection runs, and the young
  generation grows until one does, with a long pause. Paced by requests, a collection walks
  what about 100 requests left alive (a few thousand objects).

Nothing made after start-up is frozen: the webhook journal, a scenario's classes and a
restored snapshot's leftovers hold reference cycles, and the collector must be free to reclaim
them (`make bench-memory` soaks a server doing that work; tests/serving/test_memory_soak.py is
its short version). Only the serving process is tuned: code embedding `create_app` keeps its
interpreter's settings. (The pytest plugin freezes the session's mock for the session only:
testing/session_heap.py.)
"""

from __future__ import annotations

import gc
from collections.abc import Awaitable

from mockserver.serving.asgi import ASGIApp, Receive, Scope, Send

GEN0 = 2_000
COLLECT_EVERY = 100  # requests between the young collections of `PacedCollection`


def tune_for_serving() -> None:
    """Set GEN0, collect once, and freeze what is alive at the end of start-up."""
    gc.set_threshold(GEN0)
    gc.collect()  # so that no garbage of the start-up is frozen with it
    gc.freeze()


class PacedCollection:
    """`app`, with a young collection after every `every` HTTP requests (see the module).

    It counts and hands over `app`'s own awaitable rather than awaiting it in a coroutine of
    its own: one coroutine fewer to make and resume on every request. Not being a coroutine
    function, it is served with uvicorn's ASGI 3 interface named (`server._fixed`)."""

    __slots__ = ("_app", "_every", "_left")

    def __init__(self, app: ASGIApp, every: int = COLLECT_EVERY) -> None:
        self._app = app
        self._every = self._left = every

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] == "http":
            self._left -= 1
            if not self._left:
                self._left = self._every
                gc.collect(0)
        return self._app(scope, receive, send)
