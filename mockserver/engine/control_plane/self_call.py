"""Requests a sandbox makes to itself: the trigger recipes' calls, each a whole request.

Each call goes through the app (rate limits, scenarios, the journal, the operations) as the
sandbox's own request, which a durable log passes through, not a shortcut to the domain: the
journal records it like any client's, and the audit log and the delivery engine see what a
client would cause. It runs inside the request that started it (a durable sandbox logs that one
request; its replay makes the calls again). Calls carry `User-Agent: mockserver-trigger/1`, so
the journal shows where they came from, and the admin token (when one is set) for `/_mock`
calls: the request that started them passed the guard.
"""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.engine.control_plane.triggers import Call
from mockserver.engine.request import Request, Serve, host_region

USER_AGENT = b"mockserver-trigger/1"


def self_caller(serve: Serve, admin_token: str | None, origin: Request, key: str) -> Call:
    """A `Call` through `serve` (the app, as the sandbox's own requests), as the client of `origin`,
    authenticated with the API key `key`."""
    host = origin.text_header("host", "127.0.0.1")
    if host_region(origin.headers) is not None:
        host = "127.0.0.1"  # a regional host would pin every call to its region
    client = origin.client or ("127.0.0.1", 0)
    server = origin.server or ("127.0.0.1", 80)

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
        if admin_token is not None and path.startswith("/_mock"):
            headers.append((b"x-mock-admin-token", admin_token.encode("latin-1")))
        request = Request.of(
            method, path, headers, query.encode(), raw, client, origin.scheme, server
        )
        response = await serve(request)
        return response.status, orjson.loads(response.body) if response.body else None

    return call
