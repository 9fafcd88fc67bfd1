"""The inputs of a durable sandbox's log as requests: what a record keeps of a request, the
request a record gives back, how much of a body is read, which requests await webhooks."""

from __future__ import annotations

import re

from mockserver.engine.durable import records
from mockserver.engine.request import MAX_BODY, Request
from mockserver.engine.snapshots import UPLOAD_MAX

# Requests that may await webhook attempts: they take the lock only when none is under way,
# and the attempts they await are logged inside them. A trigger is one: its recipe may move the
# clock (`document.locked`), which awaits the attempts of the writes the recipe made before.
SETTLING = frozenset(
    {
        "/_mock/clock/advance",
        "/_mock/clock/set",
        "/_mock/webhooks/wait",
        "/_mock/events/trigger",
        "/_mock/ui/clock/advance",
        "/_mock/ui/events/trigger",
    }
)
_ACCOUNT = re.compile(r"/_mock/accounts/[^/]+(/.+)$")  # an account's own control endpoints


def _server_path(path: str) -> str:
    """The server endpoint an account's control endpoint is (`/_mock/accounts/X/reset` is
    `/_mock/reset` on that account); any other path as it is."""
    found = _ACCOUNT.match(path)
    return path if found is None else f"/_mock{found.group(1)}"


def settles(path: str) -> bool:
    """Whether a request to `path` awaits webhook attempts (the server's or an account's)."""
    return _server_path(path) in SETTLING


def body_cap(path: str) -> int:
    """How much of a body a request to `path` reads at most: past that the request is
    refused with 413 (the log keeps one byte more, as the request path read it)."""
    return UPLOAD_MAX if _server_path(path) == "/_mock/snapshots/upload" else MAX_BODY


def request_record(wall: float, request: Request) -> records.Request:
    """The log's record of a request as the app below the log is about to receive it."""
    return records.Request(
        wall,
        request.method,
        request.scheme,
        request.path,
        request.path.encode(),
        request.query,
        tuple(request.headers),
        request.client,
        (request.server[0], request.server[1] or 0) if request.server else None,
        request.body,
    )


def request_of(record: records.Request) -> Request:
    """The request a record of the log holds, to run again."""
    return Request.of(
        record.method,
        record.path,
        list(record.headers),
        record.query_string,
        record.body,
        record.client,
        record.scheme,
        record.server,
    )


def with_body(request: Request, body: bytes) -> Request:
    return Request.of(
        request.method,
        request.path,
        request.headers,
        request.query,
        body,
        request.client,
        request.scheme,
        request.server,
        request.root_path,
    )
