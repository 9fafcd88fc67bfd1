"""Reading a JSON request body safely: size cap, content type, encoding, shape."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request

from mockserver.errors import BadRequest, PayloadTooLarge

MAX_BODY = 1024 * 1024


async def read_json_object(request: Request, *, max_bytes: int = MAX_BODY) -> dict[str, Any]:
    """The body as a JSON object; 413 over `max_bytes`, 400 when absent or not a JSON object."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
    content_type = request.headers.get("content-type", "")
    media = content_type.split(";", 1)[0].strip().lower()
    if media and media != "application/json" and not media.endswith("+json"):
        raise BadRequest(f"Unsupported Content-Type '{media}'. Send the body as application/json.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise BadRequest("A JSON request body is required.")
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"Invalid JSON in request body: {exc}.") from None
    if not isinstance(parsed, dict):
        raise BadRequest("The request body must be a JSON object.")
    return parsed
