"""Collector settings for a serving process: `mockserver run` calls `tune_for_serving`.

Python's cyclic collector walks every tracked object of the generations it collects, and the
mock keeps all it serves in memory: a world of a large seed is millions of objects,
and a POST soak adds a document and an audit event per request. With the defaults, collecting
while a world is built re-walks what was just built (work for nothing), and each full
collection walks the whole store: pauses that grow with stored state and land on whichever
requests are in flight. The mock makes no cyclic garbage
(tests/serving/test_gc_tuning.py checks a world build and a mix of requests over a socket), so its
objects are freed by reference counting and the collector only needs to look at young objects:

- the seed and the app are frozen at start (`gc.freeze()`: moved out of every generation);
- a world is built with the collector paused, then frozen;
- after every collection the survivors are frozen, so each collection walks only what was
  allocated since the one before: about GEN0 objects, a short pause;
- GEN0 is 2,000 instead of 700: a collection then comes every hundred or so POSTs, which
  is fewer pauses than the default and each still short. A collection's cost is per object
  it walks, and with a big store each object costs more (the objects it reads are spread
  over much memory), so a larger GEN0 makes pauses long enough to set the POST p99. The
  total work is the same either way: what cuts it is keeping fewer tracked objects per
  stored resource (an idempotency record is one object, see domain.idempotency);
- and a young collection runs every COLLECT_EVERY requests (`PacedCollection`), whatever the
  allocation counter says. The counter is allocations minus deallocations of tracked objects,
  and frees of frozen objects count too: in a steady state where each request's new objects
  replace old ones (the journal ring drops an entry as it adds one; records expire), it hardly
  moves, no collection runs, and the young generation grows until one does, with a long
  pause. Paced by requests, a collection walks what about 100 requests left alive (a few
  thousand objects).

The price: cyclic garbage made from objects that lived through one collection is never
reclaimed. The test above fails if a change starts making such garbage; handle it there
(break the cycle) rather than loosening this. Only the serving process is tuned: tests and
code embedding `create_app` keep their interpreter's settings.
"""

from __future__ import annotations

import gc
from typing import Any

from mockserver.domain.store import Store, World, WorldLoader
from mockserver.serving.asgi import ASGIApp, Receive, Scope, Send

GEN0 = 2_000
COLLECT_EVERY = 100  # requests between the young collections of `PacedCollection`


def tune_for_serving(store: Store) -> None:
    """Freeze what exists now and every world once built; freeze survivors of collections."""
    gc.set_threshold(GEN0)
    if store.loader is not None:
        store.loader = frozen_after_loading(store.loader)
    if freeze_survivors not in gc.callbacks:
        gc.callbacks.append(freeze_survivors)
    gc.freeze()


def freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """A gc callback: once a collection has run, what it left alive is frozen."""
    if phase == "stop":
        gc.freeze()


def frozen_after_loading(loader: WorldLoader) -> WorldLoader:
    """`loader`, run with the collector paused, then freezing everything alive."""

    def load(world: World, store: Store) -> None:
        enabled = gc.isenabled()
        gc.disable()
        try:
            loader(world, store)
        finally:
            if enabled:
                gc.enable()
        gc.freeze()

    return load


class PacedCollection:
    """`app`, with a young collection after every `every` HTTP requests (see the module)."""

    __slots__ = ("_app", "_every", "_left")

    def __init__(self, app: ASGIApp, every: int = COLLECT_EVERY) -> None:
        self._app = app
        self._every = self._left = every

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self._left -= 1
            if not self._left:
                self._left = self._every
                gc.collect(0)
        await self._app(scope, receive, send)
