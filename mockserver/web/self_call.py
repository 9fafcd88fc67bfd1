"""Requests a server makes to itself: the trigger recipes' calls, run through the whole app.

Each call is a real ASGI request into the app (the pipeline, rate limits, scenarios, the
routes), not a shortcut to the engine, so the request journal records it like any client's and
the audit log and the delivery engine see what a client would cause. It is answered in memory,
without a socket. Calls carry `User-Agent: mockserver-trigger/1`, so the journal shows where
they came from, and the admin token (when one is set) for `/_mock` calls: the request that
started them has passed the guard already.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from starlette.requests import Request
from starlette.types import Message

from mockserver.web.hosts import host_region
from mockserver.web.triggers import Call

USER_AGENT = b"mockserver-trigger/1"


def self_caller(request: Request, key: str) -> Call:
    """A `Call` into the app serving `request`, authenticated with the API key `key`."""
    app = request.app
    token: str | None = app.state.settings.admin_token
    host = request.headers.get("host", "127.0.0.1")
    if host_region(request.scope) is not None:
        host = "127.0.0.1"  # a regional host would pin every call to its region
    client = request.scope.get("client") or ("127.0.0.1", 0)
    server = request.scope.get("server") or ("127.0.0.1", 80)

    async def call(method: str, target: str, body: Any) -> tuple[int, Any]:
        path, _, query = target.partition("?")
        raw = b"" if body is None else orjson.dumps(body)
        headers = [
            (b"host", host.encode("latin-1")),
            (b"user-agent", USER_AGENT),
            (b"authorization", f"Bearer {key}".encode("latin-1")),
            (b"content-length", str(len(raw)).encode()),
        ]
        if body is not None:
            headers.append((b"content-type", b"application/json"))
        if token is not None and path.startswith("/_mock"):
            headers.append((b"x-mock-admin-token", token.encode("latin-1")))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": request.scope.get("scheme", "http"),
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": headers,
            "client": client,
            "server": server,
        }
        done = asyncio.Event()
        sent = False
        status = 500
        chunks: list[bytes] = []

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": raw, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    done.set()

        try:
            await app(scope, receive, send)
        finally:
            done.set()
        payload = b"".join(chunks)
        return status, orjson.loads(payload) if payload else None

    return call
