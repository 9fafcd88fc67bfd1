"""The head of a response written by compiled code instead of uvicorn's loop over its headers.

uvicorn's httptools protocol checks each response header against two regular expressions,
lowercases it and looks for `content-length`, `transfer-encoding` and `connection`, in Python,
and our answers carry eight headers (uvicorn's `server`, the content's two, the request id,
three rate-limit headers and the mock clock's `Date`), so that loop is a visible share of a
request's cost.

`direct(send)` gives the app a `send` that writes a plain response's status line and headers
itself, as the same bytes, with the same checks made once over all the headers: the default
headers are checked and rendered once per value of uvicorn's list (it makes a new one each
second, for the date), names once each, values in one pass over their concatenation. It sets
the cycle's response state as uvicorn's `send` would and leaves everything else to it: the body,
a response without `content-length` (chunked, or 204/304/HEAD), one with a `connection` or
`transfer-encoding` header, a header that fails a check (uvicorn raises its error), write
back-pressure, a disconnected client, an access log. Under any other server, or another
uvicorn protocol, `direct` returns `send` unchanged.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Final, cast, final

from mockserver.serving.asgi import ASGIApp, Message, Receive, Scope, Send


def _httptools() -> ModuleType | None:
    try:
        return importlib.import_module("uvicorn.protocols.http.httptools_impl")
    except ImportError:  # no httptools: uvicorn serves with h11, whose send stays as it is
        return None


# uvicorn's own cycle class, status lines and header checks, so the bytes and the verdicts are
# exactly its own.
_HTTPTOOLS: Final = _httptools()
_CYCLE: Final[Any] = getattr(_HTTPTOOLS, "RequestResponseCycle", None)
_STATUS_LINE: Final[dict[int, bytes]] = getattr(_HTTPTOOLS, "STATUS_LINE", {})
_HEADER_RE: Final[Any] = getattr(_HTTPTOOLS, "HEADER_RE", None)
_HEADER_VALUE_RE: Final[Any] = getattr(_HTTPTOOLS, "HEADER_VALUE_RE", None)

NAMES_KEPT: Final = 256  # header names known to pass uvicorn's check (the app uses a dozen)
_plain_names: dict[bytes, None] = {}


def direct(send: Send) -> Send:
    """`send`, or one that writes plain heads itself when `send` is uvicorn's httptools one."""
    cycle = getattr(send, "__self__", None)
    if _CYCLE is None or type(cycle) is not _CYCLE:
        return send
    return HeadWriter(cycle, send).send


class HeadWriting:
    """An app that answers HTTP through `direct`: under uvicorn's httptools protocol its
    response heads are written here, otherwise nothing changes. How `mockserver run` and the
    test servers serve the app (`server.py`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            send = direct(send)
        await self.app(scope, receive, send)


def _plain_name(name: bytes) -> bool:
    """Whether uvicorn would write `name` as it is: a token, already lowercase."""
    if name in _plain_names:
        return True
    if _HEADER_RE.search(name) or name.lower() != name:
        return False
    if len(_plain_names) < NAMES_KEPT:
        _plain_names[name] = None
    return True


def _plain_values(values: list[bytes]) -> bool:
    """Whether uvicorn's value check passes all of `values`. Printable Latin-1 text has none of
    the control bytes it refuses; anything else (a tab, bytes above 0x7e) is checked as it does."""
    if b"".join(values).decode("latin-1").isprintable():
        return True
    return not any(_HEADER_VALUE_RE.search(value) for value in values)


NO_LENGTH: Final = -1  # `_render`: plain headers without content-length
NOT_PLAIN: Final = -2  # `_render`: headers uvicorn's send must take


def _render(headers: object, lines: list[bytes]) -> int:
    """Append the lines of `headers` to `lines` and return the first content-length, or
    NO_LENGTH, or NOT_PLAIN (`lines` then holds a part of them) when uvicorn would do more
    than write them: a connection or transfer-encoding header, a check that fails, a
    content-length that is not a count, anything but a list of pairs of bytes."""
    if type(headers) is not list:
        return NOT_PLAIN
    try:
        return _render_pairs(cast(list[object], headers), lines)
    except TypeError:  # compiled: a pair that is not two bytes objects (see _render_pairs)
        return NOT_PLAIN


def _render_pairs(headers: list[object], lines: list[bytes]) -> int:
    """`_render` of a list. Its names and values are read as bytes, which compiled code checks
    (raising TypeError) and then compares natively; the explicit checks are for the source."""
    values: list[bytes] = []
    length = NO_LENGTH
    for item in headers:
        if type(item) is not tuple or len(item) != 2:
            return NOT_PLAIN
        name, value = cast(tuple[bytes, bytes], item)
        if type(name) is not bytes or type(value) is not bytes or not _plain_name(name):
            return NOT_PLAIN
        if name == b"content-length":
            if length == NO_LENGTH:
                try:
                    length = int(value.decode())
                except ValueError:
                    return NOT_PLAIN
                if length < 0:
                    return NOT_PLAIN
        elif name == b"transfer-encoding" or name == b"connection":
            return NOT_PLAIN
        lines.append(name)
        lines.append(b": ")
        lines.append(value)
        lines.append(b"\r\n")
        values.append(value)
    return length if _plain_values(values) else NOT_PLAIN


@final
class _Defaults:
    """uvicorn's default headers (server, date) rendered, for the list they were rendered from."""

    __slots__ = ("headers", "rendered")

    def __init__(self) -> None:
        self.headers: object = None
        self.rendered = b""

    def render(self, headers: object) -> bytes | None:
        """The rendered lines of `headers`, or None if one is not plain."""
        if headers is self.headers:
            return self.rendered
        lines: list[bytes] = []
        if _render(headers, lines) != NO_LENGTH:  # content-length is the app's to send
            return None
        self.headers, self.rendered = headers, b"".join(lines)
        return self.rendered


_defaults = _Defaults()


@final
class HeadWriter:
    """The `send` of one request under uvicorn's httptools protocol."""

    __slots__ = ("_cycle", "_send")

    def __init__(self, cycle: Any, send: Send) -> None:
        self._cycle = cycle
        self._send = send

    async def send(self, message: Message) -> None:
        if message["type"] != "http.response.start" or not self._write_head(message):
            await self._send(message)

    def _write_head(self, message: Message) -> bool:
        """Write the head as uvicorn would and return True, or return False having changed
        nothing (uvicorn's `send` then takes the message)."""
        cycle = self._cycle
        if (
            cycle.response_started
            or cycle.disconnected
            or cycle.access_log
            or cycle.flow.write_paused
        ):
            return False
        status = message["status"]
        headers = message.get("headers", [])
        if type(status) is not int:
            return False
        line = _STATUS_LINE.get(status)
        defaults = _defaults.render(cycle.default_headers)
        if line is None or defaults is None:
            return False
        parts = [line, defaults]
        length = _render(headers, parts)
        if length < 0:
            return False
        if not cycle.keep_alive:
            parts.append(b"connection: close\r\n")
        parts.append(b"\r\n")
        cycle.response_started = True
        cycle.waiting_for_100_continue = False
        cycle.expected_content_length = length
        cycle.chunked_encoding = False
        cycle.transport.write(b"".join(parts))
        return True
