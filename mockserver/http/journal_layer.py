"""The pure-ASGI layer that writes every API request and its response to the journal.

It sits outside the pipeline, so it sees the path as the client sent it (with its regional
prefix), the request id and every header the pipeline adds, errors included, and bodies before
gzip. Control-plane calls (`/_mock`) are not recorded: reading the journal must not change it.
`duration_ms` is wall time (the one value in the journal that is not deterministic).
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.journal import Journal
from mockserver.store import Store

RULE_KEY = "mock.rule"  # the faults layer names the rule that answered, here


class JournalLayer:
    def __init__(self, app: ASGIApp, store: Store, journal: Journal) -> None:
        self.app = app
        self.store = store
        self.journal = journal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/_mock"):
            await self.app(scope, receive, send)
            return
        headers = tuple(map(tuple, scope.get("headers", ())))
        entry = self.journal.open(
            self.store.clock.now(),
            scope["method"],
            scope["path"],
            scope.get("query_string", b"").decode("latin-1"),
            headers,
        )
        for name, value in headers:
            if name == b"authorization":
                scheme, _, token = value.decode("latin-1").strip().partition(" ")
                if scheme.lower() == "bearer" and token.strip():
                    entry.credential = token.strip()
        started = time.perf_counter()

        async def recording_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                entry.add_request_body(message.get("body", b""))
            return message

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                entry.status = message["status"]
                entry.response_headers = tuple(map(tuple, message.get("headers", ())))
            elif message["type"] == "http.response.body":
                entry.add_response_body(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, recording_receive, recording_send)
        finally:
            entry.duration = time.perf_counter() - started
            entry.rule = scope.get(RULE_KEY)
