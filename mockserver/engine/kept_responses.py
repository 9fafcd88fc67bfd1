"""A keyed POST's turn with its `Idempotency-Key`: held while its body arrives, then refused,
answered again from what was kept, or run keeping what it answers (the rules are
`engine/traffic.py`'s; this is the request's side of them).

`claim` holds the key before the body is read (so a retry sent while this body is still
arriving is refused as in flight rather than run twice), reads the body, then gives a `Replay`
(a kept response to answer again), a `Ticket` (the request runs and keeps its answer) or None
(the request runs as if it had no key: its body is over the size limit).

A kept response is one bytes object laid out like HTTP/1.1 (`pack_head`, then the body): one
allocation of exactly its size, and nothing for the collector to walk (a record lives a day of
mock time).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from mockserver.domain.auth import Principal
from mockserver.domain.idempotency import is_kept
from mockserver.engine.reading import MAX_BODY, first_header
from mockserver.engine.request import HeaderLines
from mockserver.engine.traffic import Hold, Traffic

StoredResponse = bytes  # see `pack_response`
REPLAYED = (b"idempotent-replayed", b"true")
# The headers a kept answer holds, each at most once: the mock's own (the operation's, a
# deprecation's, its request id). Anything else on the first answer (a scenario rule's extra
# headers) is not answered again, so a kept answer, and a snapshot file's, can hold nothing
# else (`check_kept`).
_KEPT = frozenset(
    (b"content-type", b"content-length", b"x-request-id", b"deprecation", b"sunset", b"link")
)
_REQUEST_ID = re.compile(rb"req_[A-Za-z0-9]{1,64}")
_VISIBLE = re.compile(rb"[\x20-\x7e]*")


class Replay(NamedTuple):
    """A kept response to answer again."""

    response: StoredResponse


class Ticket:
    """A request that runs holding its key: keeps what it answers, or lets the key go."""

    __slots__ = ("hold", "traffic")

    def __init__(self, traffic: Traffic, hold: Hold) -> None:
        self.traffic = traffic
        self.hold = hold

    def answered(
        self, permission: str | None, status: int, headers: HeaderLines, body: bytes
    ) -> None:
        """The response (its headers include X-Request-Id, not the rate-limit ones): kept
        for the operation's `permission`, or the key let go if no operation ran."""
        if self.hold.record is None:
            return
        head = pack_head(status, kept_headers(headers, body))
        self.traffic.keep(self.hold, permission, status, pack_response(head, body))

    def close(self) -> None:
        """After the request: release the key if no response was kept."""
        self.traffic.release(self.hold)


async def claim(
    traffic: Traffic,
    principal: Principal,
    keys: list[str],
    method: str,
    region: str | None,
    path: str,
    headers: HeaderLines,
    read_body: Callable[[int], Awaitable[bytes]],
) -> tuple[Ticket | Replay | None, object]:
    """Refuse (400 for a bad key, 409), replay, or let the request run holding its key; and
    the body parsed as JSON when it was (for the operation to use again; None otherwise)."""
    hold = traffic.hold(principal, keys, _declared_length(headers))
    if hold is None:
        return None, None  # the operation answers 413 without reading it
    try:
        body = await read_body(MAX_BODY)
    except BaseException:
        traffic.release(hold)
        raise
    if len(body) > MAX_BODY:  # over the size limit: the operation answers 413, nothing kept
        traffic.release(hold)
        return Ticket(traffic, hold), None
    value, kept = traffic.settle(hold, principal, method, region, path, body)
    parsed = value if type(value) is dict else None
    if kept is not None:
        return Replay(kept), parsed
    return Ticket(traffic, hold), parsed


def _declared_length(headers: HeaderLines) -> int:
    value = first_header(headers, b"content-length")
    return int(value) if value is not None and value.isdigit() else 0


def pack_head(status: int, headers: HeaderLines) -> bytes:
    """The head of a response to keep: the status, header lines and a blank line."""
    lines = [b"%d" % status, *[name + b": " + value for name, value in headers]]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def pack_response(head: bytes, body: bytes) -> StoredResponse:
    """A response to keep: its head, then its body."""
    return head + body if body else head


def unpack_response(stored: StoredResponse) -> tuple[int, HeaderLines, bytes]:
    """(status, headers, body) of `pack_response`. A header line is never empty and never
    holds a line break, so the first blank line ends the head, and a name holds no colon."""
    head, _, body = stored.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = [(name, value) for name, _, value in (line.partition(b": ") for line in lines)]
    return int(status), headers, body


def kept_headers(headers: HeaderLines, body: bytes) -> HeaderLines:
    """The headers of an answer that a replay sends again: the mock's own, once each, with
    values it writes (a JSON content type, the body's length, a request id, visible ASCII)."""
    kept: HeaderLines = []
    seen: set[bytes] = set()
    for name, value in headers:
        if name in _KEPT and name not in seen and _own_value(name, value, body):
            kept.append((name, value))
            seen.add(name)
    return kept


def _own_value(name: bytes, value: bytes, body: bytes) -> bool:
    if name == b"content-type":
        return value == b"application/json"
    if name == b"content-length":
        return value == b"%d" % len(body)
    if name == b"x-request-id":
        return _REQUEST_ID.fullmatch(value) is not None
    return _VISIBLE.fullmatch(value) is not None


def check_kept(stored: StoredResponse) -> str | None:
    """What is wrong with a kept answer read from a file (None: nothing): it must be one the
    mock keeps, a kept status and only the headers `kept_headers` keeps."""
    head, blank, _ = stored.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0]
    if not blank or not status_line.isdigit() or len(status_line) != 3:
        return "is not a kept answer: a status, header lines, a blank line, then the body"
    status, headers, body = unpack_response(stored)
    if not is_kept(status):
        return f"has status {status}, which is never kept"
    kept = kept_headers(headers, body)
    if kept != headers:
        odd = next(name for name, value in headers if (name, value) not in kept)
        shown = odd.decode("ascii", "replace")[:64]
        return f"has a header the mock does not keep, or not as the mock writes it: {shown!r}"
    return None
