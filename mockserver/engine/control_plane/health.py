"""`GET /_mock/health`: 200 `{"status": "ok", "version": V}` for a container's or a load
balancer's health checks.

It answers before anything else looks at the request (`web/middleware/observability.py`): no admin
token, no browser guard, no request id, no journal entry, no line in a durable sandbox's log,
and with `--no-admin` too. It reveals nothing but the version (and, on a server watching its seed
file, `seed_error`: the problem of the seed's last save, until a valid one), and a check every
few seconds changes nothing the sandbox holds, nor waits for a request that holds the sandbox.
"""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.core.version import __version__
from mockserver.engine.request import Response

HEALTH = "/_mock/health"
_BODY = orjson.dumps({"status": "ok", "version": __version__})
_HEADERS = (
    (b"content-type", b"application/json"),
    (b"content-length", str(len(_BODY)).encode()),
    (b"cache-control", b"no-store"),
)


def health(seed_error: dict[str, Any] | None = None) -> Response:
    """The answer to a health check; with the problem of a watched seed's last save."""
    if seed_error is None:
        return Response(200, list(_HEADERS), _BODY)
    body = orjson.dumps({"status": "ok", "version": __version__, "seed_error": seed_error})
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    return Response(200, [*headers, (b"cache-control", b"no-store")], body)
