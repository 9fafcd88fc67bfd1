"""Reading an `application/x-www-form-urlencoded` request body (the OAuth token endpoint's).

Parsed with the standard library rather than Starlette's form parser, which needs
python-multipart even for urlencoded bodies. Pairs are returned in order, repeats included,
so callers can refuse repeated parameters as RFC 6749 section 3.1 asks.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request

from mockserver.core.errors import BadRequest, PayloadTooLarge
from mockserver.engine.calls import MAX_BODY

FORM = "application/x-www-form-urlencoded"
MAX_FIELDS = 100


async def read_form(request: Request, *, max_bytes: int = MAX_BODY) -> list[tuple[str, str]]:
    """The body's (name, value) pairs; 413 over `max_bytes`, 400 for another Content-Type
    (a missing one is read as a form) or a body that is not UTF-8 form encoding."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media and media != FORM:
        raise BadRequest(f"Unsupported Content-Type '{media}'. Send the body as {FORM}.")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
        chunks.append(chunk)
    try:
        text = b"".join(chunks).decode("utf-8")
        return parse_qsl(
            text,
            keep_blank_values=True,
            encoding="utf-8",
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except ValueError as exc:  # UnicodeDecodeError included
        raise BadRequest(f"Malformed form body: {exc}.") from None
