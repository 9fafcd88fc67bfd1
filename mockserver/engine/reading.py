"""Reading a request's parts safely: the query string, a JSON or form body, the credential
headers (one `Authorization` header at most), the region a request is pinned to.

The v1 API refuses a body declared as anything but JSON (400); a missing Content-Type reads as
JSON. The `/_mock` control plane reads its body as JSON whatever the Content-Type says, so
`curl -d '{"name": "legal_hold"}'` (sent as application/x-www-form-urlencoded) works as typed.
A query with bytes a client would have escaped is 400 rather than silently a different value.

Regional hosts: `us.<anything>` and `eu.<anything>` pin a region like `/us/v1`. A request that
names two different regions, by host and by path, names a URL that exists on no host of the
real service: 404 `not_found`, like any unknown URL.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import orjson

from mockserver.core.errors import BadRequest, NotFound, PayloadTooLarge
from mockserver.engine.request import HeaderLines

MAX_BODY = 1024 * 1024  # bytes of a request body; past it the answer is 413
FORM = "application/x-www-form-urlencoded"
MAX_FIELDS = 100
REGIONS = ("us", "eu")

CONTROL_PLANE = "/_mock"  # where the control plane's paths start


def first_header(headers: HeaderLines, name: bytes) -> bytes | None:
    """The value of the first `name` header (lowercase), or None."""
    for key, value in headers:
        if key == name:
            return value
    return None


def query_pairs(raw: bytes) -> list[tuple[str, str]]:
    """The (name, value) pairs of a raw query string, in order, repeats included (as
    `parse_qsl` with `keep_blank_values=True` gives them); split by hand when there is nothing
    to unquote, the usual case."""
    text = raw.decode("latin-1")
    if "%" in text or "+" in text:
        return parse_qsl(text, keep_blank_values=True)
    if "&" not in text:  # one parameter, as a page's `limit=20`
        if not text:
            return []
        at = text.find("=")
        return [(text, "") if at < 0 else (text[:at], text[at + 1 :])]
    items: list[tuple[str, str]] = []
    for field in text.split("&"):
        if field:
            name, _, value = field.partition("=")
            items.append((name, value))
    return items


def host_region(headers: HeaderLines) -> str | None:
    """`us` or `eu` when the Host header's first label names a region (port ignored)."""
    host = first_header(headers, b"host")
    if host is None or host[2:3] != b".":  # both regions' labels are two letters long
        return None
    label = host[:2].decode("latin-1").lower()
    return label if label in REGIONS else None


def routed_region(
    headers: HeaderLines, method: str, path: str, path_region: str | None
) -> str | None:
    """The region a request is pinned to by its host and its path prefix, or None (the
    account's default region); NotFound when host and path name different regions."""
    by_host = host_region(headers)
    if by_host is None or path_region is None or by_host == path_region:
        return by_host or path_region
    host = (first_header(headers, b"host") or b"").decode("latin-1")
    raise NotFound(
        f"Unrecognized request URL ({method} /{path_region}{path}): "
        f"the host {host} serves region {by_host}, the path names region {path_region}."
    )


def _length_and_type(headers: HeaderLines) -> tuple[str | None, str]:
    """The first Content-Length (None if absent) and Content-Type ("" if absent)."""
    length: str | None = None
    content_type: str | None = None
    for name, value in headers:
        if name == b"content-length" and length is None:
            length = value.decode("latin-1")
        elif name == b"content-type" and content_type is None:
            content_type = value.decode("latin-1")
    return length, content_type or ""


def check_json_head(headers: HeaderLines, max_bytes: int, any_content_type: bool) -> None:
    """What a JSON body is refused for before it is read: a declared length over `max_bytes`
    (413), a declared media type that is not JSON (400) unless `any_content_type`."""
    declared, content_type = _length_and_type(headers)
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


def parse_json_object(raw: bytes, max_bytes: int) -> dict[str, Any]:
    """A read body as a JSON object: 413 past `max_bytes`, 400 when absent or not an object."""
    if len(raw) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
    if not raw.strip():
        raise BadRequest("A JSON request body is required.")
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"Invalid JSON in request body: {exc}.") from None
    if not isinstance(parsed, dict):
        raise BadRequest("The request body must be a JSON object.")
    return parsed


def check_form_head(headers: HeaderLines, max_bytes: int) -> None:
    """400 for a Content-Type other than a form (a missing one reads as a form), 413 for a
    declared length over `max_bytes`."""
    declared, content_type = _length_and_type(headers)
    media = content_type.split(";", 1)[0].strip().lower()
    if media and media != FORM:
        raise BadRequest(f"Unsupported Content-Type '{media}'. Send the body as {FORM}.")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")


def parse_form(raw: bytes, max_bytes: int) -> list[tuple[str, str]]:
    """A read form body's (name, value) pairs, in order, repeats included (RFC 6749 section
    3.1 refuses repeated parameters): 413 past `max_bytes`, 400 when not UTF-8 form encoding."""
    if len(raw) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
    try:
        return parse_qsl(
            raw.decode("utf-8"),
            keep_blank_values=True,
            encoding="utf-8",
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except ValueError as exc:  # UnicodeDecodeError included
        raise BadRequest(f"Malformed form body: {exc}.") from None
