"""Responses of the control plane and the inspector: JSON, and the sandbox's `Response` as
Starlette's (the error envelope is `engine.envelope`'s)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from mockserver.engine.request import Response as SandboxResponse

JSON = "application/json"


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response encoded with orjson."""
    return Response(orjson.dumps(body), status_code=status, headers=headers, media_type=JSON)


def as_sent(response: SandboxResponse) -> Response:
    """The sandbox's `response` as Starlette's, its headers as they were made, in their order."""
    sent = Response(status_code=response.status)
    sent.body = response.body
    sent.raw_headers = response.headers
    return sent
