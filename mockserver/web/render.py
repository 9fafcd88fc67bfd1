"""JSON responses of the control plane and the inspector (the error envelope is
`engine.envelope`'s)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

JSON = "application/json"
_JSON_HEADER = (b"content-type", JSON.encode())


class JsonBytes(Response):
    """A Response of JSON bytes with exactly the headers Starlette's `Response(body,
    media_type=JSON)` gives (`content-length`, then `content-type`), without its generic
    header building (a large share of a GET's handler time). `kept`: the body is already stored at
    its size (see kept_bytes), so the journal may keep it without a copy."""

    body: bytes

    def __init__(self, body: bytes, status: int = 200, *, kept: bool = False) -> None:
        self.kept = kept
        self.status_code = status
        self.media_type = JSON
        self.background = None
        self.body = body
        if status < 200 or status in (204, 304):  # Starlette sends no length for these
            self.raw_headers = [_JSON_HEADER]
        else:
            self.raw_headers = [(b"content-length", str(len(body)).encode()), _JSON_HEADER]


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response encoded with orjson."""
    if headers is None:
        return JsonBytes(orjson.dumps(body), status)
    return Response(orjson.dumps(body), status_code=status, headers=headers, media_type=JSON)
