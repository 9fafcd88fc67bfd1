"""The API's error envelope: the only place an ApiError (or an error a scenario injects)
becomes a response body, and `render_error`, the one function that turns an ApiError into the
response every refusal sends."""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.core.errors import ApiError
from mockserver.engine.request import Response


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


def render_error(error: ApiError, request_id: str) -> Response:
    """The response refusing a request with `error`: the envelope, then the headers the error
    carries (`Retry-After`, `WWW-Authenticate`, ...)."""
    body = error_bytes(error, request_id)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.lower().encode(), v.encode()) for k, v in error.headers.items()),
    ]
    return Response(error.status, headers, body)
