"""Writing every API request and its response to the journal, for the pipeline (`pipeline.py`).

The pipeline records outside everything else it does, so the journal sees the path as the
client sent it (with its regional prefix), the request id and every header the pipeline adds,
errors included, and bodies before gzip. Control-plane calls (`/_mock`) are not recorded:
reading the journal must not change it. `duration_ms` is wall time (the one value in the
journal that is not deterministic). The credential is found in the headers when the entry is
read, not here.
"""

from __future__ import annotations

from starlette.types import Message, Receive, Scope

from mockserver.domain.store import Store
from mockserver.engine.journal import Entry, Journal

CONTROL_PLANE = "/_mock"


def open_entry(journal: Journal, store: Store, scope: Scope) -> Entry:
    """A new entry for the request of `scope`, at the mock clock's time."""
    return journal.open(
        store.clock.now(),
        scope["method"],
        scope["path"],
        scope.get("query_string", b"").decode("latin-1"),
        tuple(scope.get("headers", ())),  # servers give (name, value) tuples
    )


def recording(entry: Entry, receive: Receive) -> Receive:
    """`receive`, writing the request body to the entry as it arrives."""

    async def recording_receive() -> Message:
        message = await receive()
        if message["type"] == "http.request":
            entry.add_request_body(message.get("body", b""))
        return message

    return recording_receive
