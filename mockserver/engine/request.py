"""The sandbox's request and response: what `Sandbox.handle` takes and gives, with no server.

A `Request` is what a client sent, as values: the method, the path (decoded, as an HTTP server
gives it), the header lines, the raw query string, the whole body and the client's address. A
`Response` is the status, the header lines and the whole body the sandbox answers. The HTTP
server (`mockserver.web`) only turns ASGI into a `Request` and a `Response` back into ASGI; a
durable sandbox logs `Request` values and replays them.

`BodyReader` is how the HTTP layer hands over a body that is still arriving: the sandbox reads
it when the request's turn comes (an idempotency key is held first, as the real service holds
it while a slow upload arrives). `Request.body` is used when no reader is given.

Reading a request's parts safely: the query string, a JSON or form body, the region a request
is pinned to. The v1 API refuses a body declared as anything but JSON (400); a missing
Content-Type reads as JSON. The `/_mock` control plane reads its body as JSON whatever the
Content-Type says, so `curl -d '{"name": "legal_hold"}'` (sent as
application/x-www-form-urlencoded) works as typed. Regional hosts: `us.<anything>` and
`eu.<anything>` pin a region like `/us/v1`; a request that names two different regions, by host
and by path, names a URL that exists on no host of the real service: 404 `not_found`, like any
unknown URL.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from ipaddress import AddressValueError, IPv6Address
from typing import Any, cast, final
from urllib.parse import parse_qsl, urlunsplit

import orjson

from mockserver.core.errors import BadRequest, NotFound, PayloadTooLarge

HeaderLines = list[tuple[bytes, bytes]]  # (name lowercase, value), in the order sent

# Reads the body: at most `cap` + 1 bytes (more than `cap` means: too large), or raises
# Disconnected when the client leaves first.
BodyReader = Callable[[int], Awaitable[bytes]]


class Disconnected(Exception):
    """The client went away before its request's body arrived: there is no one to answer."""


_HOST = re.compile(
    r"^(?P<host>[a-z0-9._~%!$&'()*+,;=-]+|\[(?:(?P<ipv6>[a-f0-9]*:[a-f0-9.:]+)|"
    r"(?-i:v)[a-f0-9]+\.[a-z0-9._~!$&'()*+,;=:-]+)\])(?::(?P<port>[0-9]+))?$",
    re.IGNORECASE,
)


def _authority(host: bytes | None) -> str | None:
    """The host and port of a Host header, or None when it is absent or not a valid one."""
    if host is None:
        return None
    found = _HOST.fullmatch(host.decode("latin-1"))
    if found is None:
        return None
    if found["ipv6"] is not None:
        try:
            IPv6Address(found["ipv6"])
        except AddressValueError:
            return None
    port = found["port"]
    if port is not None and (len(port.lstrip("0")) > 5 or int(port.lstrip("0") or "0") > 65535):
        return None
    return found["host"] if port is None else f"{found['host']}:{port}"


def _header_lines(headers: Iterable[Any]) -> HeaderLines:
    """Header lines as (lowercase name, value) pairs of bytes, from bytes or str pairs."""
    lines: HeaderLines = []
    for name, value in headers:
        raw_name = name.encode("latin-1") if isinstance(name, str) else bytes(name)
        raw_value = value.encode("latin-1") if isinstance(value, str) else bytes(value)
        lines.append((raw_name.lower(), raw_value))
    return lines


def _as_bytes(value: str | bytes) -> bytes:
    """Text as Latin-1, bytes as they are (`bytes(value)` gives the same object, slower)."""
    if type(value) is bytes:
        return value
    return value.encode("latin-1") if isinstance(value, str) else bytes(value)


@final
class Request:
    """One request to the sandbox.

    `path` is decoded and without the query; `query` is the raw query string (`a=1&b=2`, str
    or bytes); `headers` are (name, value) pairs (str or bytes; names are compared lowercase);
    `client` is the peer's address. `scheme`, `server` and `root_path` say where the request
    came to, for the links an answer carries (as an ASGI server reports them).
    """

    __slots__ = (
        "body",
        "client",
        "headers",
        "method",
        "path",
        "query",
        "root_path",
        "scheme",
        "server",
    )

    def __init__(
        self,
        method: str,
        path: str,
        *,
        headers: Iterable[Any] = (),
        query: str | bytes = b"",
        body: bytes = b"",
        client: str | tuple[str, int] | None = "127.0.0.1",
        scheme: str = "http",
        server: tuple[str, int | None] | None = None,
        root_path: str = "",
    ) -> None:
        self.method = method.upper()
        self.path = path
        self.headers = _header_lines(headers)
        self.query = _as_bytes(query)
        self.body = body if type(body) is bytes else bytes(body)
        self.client: tuple[str, int] | None = (client, 0) if isinstance(client, str) else client
        self.scheme = scheme
        self.server = server
        self.root_path = root_path

    @classmethod
    def of(
        cls,
        method: str,
        path: str,
        headers: HeaderLines,
        query: bytes,
        body: bytes,
        client: tuple[str, int] | None,
        scheme: str,
        server: tuple[str, int | None] | None,
        root_path: str = "",
    ) -> Request:
        """A request from values already in their final shape (the HTTP layer's fast path:
        header lines as an ASGI server gives them, no copy)."""
        request = Request(method, path)  # cheap with no headers; every field is set below
        request.method = method
        request.path = path
        request.headers = headers
        request.query = query
        request.body = body
        request.client = client
        request.scheme = scheme
        request.server = server
        request.root_path = root_path
        return request

    def header(self, name: bytes) -> bytes | None:
        """The value of the first `name` header (lowercase), or None."""
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def text_header(self, name: str, default: str = "") -> str:
        """The first `name` header as text (`default` when absent)."""
        value = self.header(name.encode("latin-1"))
        return default if value is None else value.decode("latin-1")

    def base_url(self) -> str:
        """The URL the request came to, up to the API's root, without a trailing slash."""
        return self.url_of(
            self.root_path if self.root_path.endswith("/") else self.root_path + "/"
        ).rstrip("/")

    def url_of(self, path: str, query: bytes = b"") -> str:
        """An absolute URL of `path` on the host the request came to, as an ASGI framework
        builds it: the Host header when it is a valid one, else the server's address."""
        path = path.replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")
        netloc = _authority(self.header(b"host"))
        if netloc is None and self.server is not None:
            name, port = self.server
            if ":" in name and not name.startswith("["):
                name = f"[{name}]"
            default = {"http": 80, "https": 443}.get(self.scheme)
            netloc = name if port == default else f"{name}:{port}"
        text = query.decode("latin-1")
        if netloc is not None:
            return urlunsplit((self.scheme, netloc, path, text, ""))
        if path.startswith("//"):  # without a host, `//` would read as an authority
            path = "/%2F" + path[2:]
        return f"{path}?{text}" if text else path

    def __repr__(self) -> str:
        query = f"?{self.query.decode('latin-1')}" if self.query else ""
        return f"Request({self.method} {self.path}{query}, {len(self.body)} bytes)"


@final
class TransportFault:
    """How the connection is to break instead of carrying the answer cleanly (a scenario's
    `fault`): `kind` is reset, stall, drop_after_commit, truncate or slow_body; `committed`
    whether the request ran and its effects stay (it did not under reset and stall, whose
    response has status 0 and is never sent); `bytes_per_second` slow_body's rate, `stall_ms`
    how long a stall holds the connection before it resets it. The HTTP server's adapter
    breaks its connection so; in-process, the transport raises what a socket would."""

    __slots__ = ("bytes_per_second", "committed", "kind", "stall_ms")

    def __init__(
        self, kind: str, committed: bool, bytes_per_second: int = 0, stall_ms: int = 0
    ) -> None:
        self.kind = kind
        self.committed = committed
        self.bytes_per_second = bytes_per_second
        self.stall_ms = stall_ms

    def pace(self) -> tuple[int, float]:
        """How slow_body sends: (bytes a piece, seconds between pieces): a piece about every
        50 ms, or a byte at a time below 20 bytes a second. The socket and the in-process
        transport both send so, so that a read timeout trips alike."""
        rate = max(1, self.bytes_per_second)
        piece = max(1, int(rate * 0.05))
        return piece, piece / rate

    def __repr__(self) -> str:
        return f"TransportFault({self.kind!r})"


@final
class Response:
    """The sandbox's answer: status, header lines (lowercase names, as bytes) and body, and
    the transport fault, if any, that breaks its delivery."""

    __slots__ = ("body", "fault", "headers", "status")

    def __init__(self, status: int, headers: HeaderLines, body: bytes = b"") -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.fault: TransportFault | None = None

    def header(self, name: str) -> str | None:
        """The first value of header `name` (any case), or None."""
        wanted = name.lower().encode("latin-1")
        for key, value in self.headers:
            if key == wanted:
                return value.decode("latin-1")
        return None

    def json(self) -> Any:
        """The body parsed as JSON."""
        return orjson.loads(self.body)

    def __repr__(self) -> str:
        return f"Response({self.status}, {len(self.body)} bytes)"


# A way in: a request, then its answer (the app below a durable log, as a trigger calls it).
Serve = Callable[[Request], Awaitable[Response]]


# -- an ASGI request as a `Request` (the HTTP layer's way in) ----------------------------


def body_reader(receive: Callable[[], Awaitable[Mapping[str, Any]]]) -> BodyReader:
    """A reader of the body `receive` gives: at most `cap` + 1 bytes, or Disconnected."""

    async def read(cap: int) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise Disconnected()
            chunk: bytes = message.get("body", b"")
            if chunk:
                size += len(chunk)
                chunks.append(chunk)
                if size > cap:
                    break
            if not message.get("more_body", False):
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    return read


def asgi_header_lines(headers: Any) -> HeaderLines:
    """The scope's headers as a list of (bytes, bytes) tuples: themselves when they are one
    (uvicorn's and httpx's are), else a copy of any iterable of two-item iterables the ASGI
    spec allows."""
    if type(headers) is list:
        for pair in headers:
            if (
                type(pair) is not tuple
                or len(pair) != 2
                or type(pair[0]) is not bytes
                or type(pair[1]) is not bytes
            ):
                break
        else:
            return cast(HeaderLines, headers)
    return [(bytes(name), bytes(value)) for name, value in headers]


# `scope["state"]` of a request the sandbox makes itself (`web/adapter.py` `own_requests`): a
# trigger recipe's call, a durable log's record replayed, a watched file's reload. The log takes
# it as part of the input that is running, the metrics count it as no client's, and a transport
# fault it meets is its caller's to read, not a connection's to act out.
OWN_REQUEST = "own_request"


def is_own(scope: Mapping[str, Any]) -> bool:
    """Whether `scope` is a request the sandbox makes itself (see `OWN_REQUEST`)."""
    state = scope.get("state")
    return state is not None and OWN_REQUEST in state


def request_of(scope: Mapping[str, Any]) -> Request:
    """The sandbox's request for an ASGI HTTP scope (its body read apart)."""
    client = scope.get("client")
    server = scope.get("server")
    return Request.of(
        scope["method"],
        scope["path"],
        asgi_header_lines(scope.get("headers") or []),
        scope.get("query_string", b""),
        b"",
        (client[0], client[1]) if client else None,
        scope.get("scheme", "http"),
        (server[0], server[1]) if server else None,
        scope.get("root_path", ""),
    )


MAX_BODY = 1024 * 1024  # bytes of a request body; past it the answer is 413
FORM = "application/x-www-form-urlencoded"
MAX_FIELDS = 100
REGIONS = ("us", "eu")

CONTROL_PLANE = "/_mock"  # where the control plane's paths start
MCP_PATH = "/_mock/mcp"  # the MCP server over streamable HTTP (`mockserver.agents`)
INSPECTOR = "/_mock/ui"  # where the inspector's pages are


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


def _body_headers(headers: HeaderLines) -> tuple[str | None, str, str]:
    """The first Content-Length (None if absent), Content-Type and Content-Encoding ("" if
    absent)."""
    length: str | None = None
    content_type: str | None = None
    encoding: str | None = None
    for name, value in headers:
        if name == b"content-length" and length is None:
            length = value.decode("latin-1")
        elif name == b"content-type" and content_type is None:
            content_type = value.decode("latin-1")
        elif name == b"content-encoding" and encoding is None:
            encoding = value.decode("latin-1")
    return length, content_type or "", encoding or ""


def check_json_head(headers: HeaderLines, max_bytes: int, any_content_type: bool) -> None:
    """What a JSON body is refused for before it is read: a declared length over `max_bytes`
    (413), a declared media type that is not JSON or a compressed body (400) unless
    `any_content_type`."""
    declared, content_type, encoding = _body_headers(headers)
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
    if any_content_type:
        return
    media = content_type.split(";", 1)[0].strip().lower()
    if media and media != "application/json" and not media.endswith("+json"):
        raise BadRequest(f"Unsupported Content-Type '{media}'. Send the body as application/json.")
    _check_encoding(encoding)


def _check_encoding(encoding: str) -> None:
    """400 for a compressed body: the API reads request bodies as they are sent."""
    coding = encoding.strip().lower()
    if coding and coding != "identity":
        shown = encoding.strip()[:40]
        raise BadRequest(f"Unsupported Content-Encoding '{shown}'. Send the body uncompressed.")


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
    """400 for a Content-Type other than a form (a missing one reads as a form) or a compressed
    body, 413 for a declared length over `max_bytes`."""
    declared, content_type, encoding = _body_headers(headers)
    media = content_type.split(";", 1)[0].strip().lower()
    if media and media != FORM:
        raise BadRequest(f"Unsupported Content-Type '{media}'. Send the body as {FORM}.")
    _check_encoding(encoding)
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
