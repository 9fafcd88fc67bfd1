"""JSON bodies and the error envelope: the only place an ApiError becomes a response."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from mockserver.core.errors import ApiError

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


def error_body(error: ApiError, request_id: str) -> dict[str, Any]:
    """`{"error": {type, message, param?, code?, request_id}}`, the API's error envelope."""
    inner: dict[str, Any] = {"type": error.type, "message": error.message}
    if error.param is not None:
        inner["param"] = error.param
    if error.code is not None:
        inner["code"] = error.code
    inner["request_id"] = request_id
    return {"error": inner}


def error_bytes(error: ApiError, request_id: str) -> bytes:
    return orjson.dumps(error_body(error, request_id))


def envelope_bytes(type: str, message: str, param: str | None, request_id: str) -> bytes:
    """The error envelope for a type and status that no ApiError class stands for (errors
    injected by scenario rules), in exactly the shape `error_body` gives."""
    inner: dict[str, Any] = {"type": type, "message": message}
    if param is not None:
        inner["param"] = param
    inner["request_id"] = request_id
    return orjson.dumps({"error": inner})
