"""Reading a JSON request body safely: size cap, content type, encoding, shape.

The v1 API refuses a body declared as anything but JSON (400); a missing Content-Type reads as
JSON. The `/_mock` control plane reads its body as JSON whatever the Content-Type says, so
`curl -d '{"name": "legal_hold"}'` (sent as application/x-www-form-urlencoded) works as typed.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.types import Message, Receive, Scope

from mockserver.core.errors import BadRequest, PayloadTooLarge
from mockserver.engine.calls import MAX_BODY
from mockserver.web.context import context_of
from mockserver.web.headers import pairs


async def read_json_object(
    request: Request, *, max_bytes: int = MAX_BODY, any_content_type: bool = False
) -> dict[str, Any]:
    """The body as a JSON object; 413 over `max_bytes`, 400 when absent or not a JSON object,
    and 400 when declared as another media type unless `any_content_type`."""
    if hasattr(request, "_body"):  # read before, by `request.body()`: Starlette keeps it
        body = await request.body()

        async def again() -> Message:
            return {"type": "http.request", "body": body, "more_body": False}

        return await read_json(request.scope, again, max_bytes, any_content_type)
    return await read_json(request.scope, request.receive, max_bytes, any_content_type)


async def read_json(
    scope: Scope, receive: Receive, max_bytes: int = MAX_BODY, any_content_type: bool = False
) -> dict[str, Any]:
    """`read_json_object` of the request `scope` whose body `receive` gives."""
    declared, content_type = _length_and_type(pairs(scope.get("headers") or []))
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
    media = content_type.split(";", 1)[0].strip().lower()
    if (
        not any_content_type
        and media
        and media != "application/json"
        and not media.endswith("+json")
    ):
        raise BadRequest(f"Unsupported Content-Type '{media}'. Send the body as application/json.")
    raw = await _read(receive, max_bytes)
    context = context_of(scope)  # a keyed request's body was parsed for its fingerprint
    kept = context.parsed_body if context is not None else None
    if kept is not None and kept[0] == raw:  # the bytes the fingerprint parsed: reuse its object
        value: dict[str, Any] = kept[1]
        return value
    if not raw.strip():
        raise BadRequest("A JSON request body is required.")
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"Invalid JSON in request body: {exc}.") from None
    if not isinstance(parsed, dict):
        raise BadRequest("The request body must be a JSON object.")
    return parsed


async def read_control_json(request: Request) -> dict[str, Any]:
    """A `/_mock` body as a JSON object, whatever its Content-Type: curl's `-d` declares JSON
    as a form, and the control plane takes no forms."""
    return await read_json_object(request, any_content_type=True)


async def read_body(request: Request, max_bytes: int) -> bytes:
    """A `/_mock` body as bytes, whatever its Content-Type; 413 past `max_bytes`."""
    return await _read(request.receive, max_bytes)


def _length_and_type(headers: list[tuple[bytes, bytes]]) -> tuple[str | None, str]:
    """The first Content-Length (None if absent) and Content-Type ("" if absent), as
    `request.headers.get` reads them."""
    length: str | None = None
    content_type: str | None = None
    for name, value in headers:
        if name == b"content-length" and length is None:
            length = value.decode("latin-1")
        elif name == b"content-type" and content_type is None:
            content_type = value.decode("latin-1")
    return length, content_type or ""


async def _read(receive: Receive, max_bytes: int) -> bytes:
    """The whole body, 413 past `max_bytes`: what `request.stream()` gives, read in a loop
    without its async generator."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        kind = message["type"]
        if kind == "http.request":
            chunk: bytes = message.get("body", b"")
            if chunk:
                size += len(chunk)
                if size > max_bytes:
                    raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
                chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        elif kind == "http.disconnect":
            raise ClientDisconnect()
