"""The recording file: one exchange a line, as JSON, secrets already redacted.

`{"at", "request": {"method", "path", "query", "headers", "body"}, "response": {"status",
"headers", "body"}, "duration_ms"}`. Header names are lowercase (a repeated header's values
joined by ", "); a query is an object (a repeated parameter's values as a list); a body is its
JSON value when it is JSON, an object of fields for a form, text otherwise, `null` when empty,
and `"base64:..."` when it is not text. A gzip-encoded body is recorded decoded.
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl

from mockserver.core.errors import LoadError
from mockserver.fidelity import redaction

BODY_KEPT: Final = 1024 * 1024  # bytes of a body the file keeps; a longer one is summarised


class RecordingError(LoadError):
    """A recording that cannot be read: `file:line: message`, exit status 2."""


@dataclass(slots=True)
class Half:
    """One side of an exchange as it crossed the proxy: raw headers and the body's bytes."""

    headers: list[tuple[bytes, bytes]]
    body: bytes
    body_size: int  # every byte seen, even beyond what was kept


def entry(
    *,
    at: str,
    method: str,
    path: str,
    query_string: bytes,
    request: Half,
    status: int,
    response: Half,
    duration_ms: float,
) -> dict[str, Any]:
    """An exchange as the line the file keeps, with every secret redacted."""
    request_headers = header_map(request.headers)
    response_headers = header_map(response.headers)
    query = query_map(query_string.decode("latin-1"))
    return {
        "at": at,
        "request": {
            "method": method,
            "path": path,
            "query": redaction.query(query),
            "headers": redaction.headers(request_headers),
            "body": _body(request_headers, request),
        },
        "response": {
            "status": status,
            "headers": redaction.headers(response_headers),
            "body": _body(response_headers, response),
        },
        "duration_ms": round(duration_ms, 3),
    }


def header_map(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """Raw header pairs as an object of lowercase names; repeated values joined by ", "."""
    out: dict[str, str] = {}
    for name, value in raw:
        key, text = name.decode("latin-1").lower(), value.decode("latin-1")
        out[key] = f"{out[key]}, {text}" if key in out else text
    return out


def query_map(query_string: str) -> dict[str, Any]:
    """A query string as an object; a repeated parameter's values as a list."""
    out: dict[str, Any] = {}
    for name, value in parse_qsl(query_string, keep_blank_values=True):
        if name not in out:
            out[name] = value
        elif isinstance(out[name], list):
            out[name].append(value)
        else:
            out[name] = [out[name], value]
    return out


def _body(headers: dict[str, str], half: Half) -> Any:
    if half.body_size == 0:
        return None
    if half.body_size > len(half.body):
        return f"[{half.body_size} bytes, not recorded]"
    raw = _decoded(headers.get("content-encoding", ""), half.body)
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "base64:" + base64.b64encode(raw).decode("ascii")
    if kind == "application/json" or kind.endswith("+json"):
        try:
            return redaction.json_value(json.loads(text))
        except ValueError:
            return redaction.json_value(text)
    if kind == "application/x-www-form-urlencoded":
        return redaction.query(query_map(text))
    return redaction.json_value(text)


def _decoded(encoding: str, body: bytes) -> bytes:
    """The body without its gzip or deflate content coding (as is if it does not decode)."""
    try:
        if encoding.strip().lower() == "gzip":
            return gzip.decompress(body)
        if encoding.strip().lower() == "deflate":
            return zlib.decompress(body)
    except (OSError, zlib.error, EOFError):
        return body
    return body


def line(exchange: dict[str, Any]) -> bytes:
    """The exchange as one line of the file."""
    return json.dumps(exchange, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def read(path: Path) -> list[dict[str, Any]]:
    """Every exchange of a recording file; RecordingError at the first bad line."""
    try:
        text = path.read_text("utf-8")
    except OSError as error:
        raise RecordingError(str(path), 1, f"cannot read the recording: {error.strerror}") from None
    except UnicodeDecodeError:
        raise RecordingError(str(path), 1, "the recording is not UTF-8 text") from None
    exchanges: list[dict[str, Any]] = []
    for number, text_line in enumerate(text.splitlines(), 1):
        if not text_line.strip():
            continue
        try:
            exchange = json.loads(text_line)
        except ValueError as error:
            raise RecordingError(str(path), number, f"not a JSON object: {error}") from None
        if not _well_formed(exchange):
            raise RecordingError(
                str(path),
                number,
                "not an exchange (needs request.method, request.path and response.status)",
            )
        exchanges.append(exchange)
    return exchanges


def _well_formed(exchange: Any) -> bool:
    if not isinstance(exchange, dict):
        return False
    request, response = exchange.get("request"), exchange.get("response")
    return (
        isinstance(request, dict)
        and isinstance(request.get("method"), str)
        and isinstance(request.get("path"), str)
        and isinstance(response, dict)
        and isinstance(response.get("status"), int)
    )
