"""Making responses: the header lines of an answer and JSON answers (an error's: `envelope.py`).
The one place a status, body and media type become the lines a client reads, in the order an
ASGI framework sends them (given headers, then Content-Length, then Content-Type).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from mockserver.engine.request import HeaderLines, Response

JSON = "application/json"


def header_lines(
    status: int, body: bytes, media_type: str | None, headers: Mapping[str, str] | None = None
) -> HeaderLines:
    """The headers of a response: `headers` (names lowercased), then a Content-Length (not for
    1xx, 204 and 304) and the Content-Type (`text/*` with its charset), unless given."""
    lines: HeaderLines = []
    names: set[bytes] = set()
    if headers is not None:
        lines = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        names = {name for name, _ in lines}
    if b"content-length" not in names and not (status < 200 or status in (204, 304)):
        lines.append((b"content-length", str(len(body)).encode("latin-1")))
    if media_type is not None and b"content-type" not in names:
        if media_type.startswith("text/") and "charset=" not in media_type.lower():
            media_type += "; charset=utf-8"
        lines.append((b"content-type", media_type.encode("latin-1")))
    return lines


def json_response(
    value: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A JSON answer (the control plane's), encoded with orjson."""
    body = orjson.dumps(value)
    return Response(status, header_lines(status, body, JSON, headers), body)
