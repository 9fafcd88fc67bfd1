"""Reading an `application/x-www-form-urlencoded` body from a Starlette request (the
inspector's forms), by the engine's rules (`engine/request.py`)."""

from __future__ import annotations

from starlette.requests import Request

from mockserver.core.errors import PayloadTooLarge
from mockserver.engine.request import MAX_BODY, check_form_head, parse_form


async def read_form(request: Request, *, max_bytes: int = MAX_BODY) -> list[tuple[str, str]]:
    """The body's (name, value) pairs; 413 over `max_bytes`, 400 for another Content-Type
    (a missing one is read as a form) or a body that is not UTF-8 form encoding."""
    check_form_head(request.scope["headers"], max_bytes)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
        chunks.append(chunk)
    return parse_form(b"".join(chunks), max_bytes)
