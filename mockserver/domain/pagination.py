"""Cursor pagination by position, not offset.

A list is kept in insertion order (ascending `seq`) and served newest first. A cursor encodes
the `seq` of the last item a page returned, signed with the store's secret, so a walk resumes
just below that item: items inserted meanwhile sit above it and can cause neither a repeat nor
a gap, and finding the position is a binary search, whatever the depth.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from bisect import bisect_left
from collections.abc import Sequence
from typing import Protocol, TypeVar

from mockserver.core.errors import ValidationError


class Listed(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def deleted(self) -> bool: ...
    @property
    def status(self) -> str: ...


T = TypeVar("T", bound=Listed)

_PREFIX = "cur_"
_ENCODED_KEPT = 4096  # cursors kept by seq (a cursor depends only on the seq and the secret)


class CursorCodec:
    """Signs and checks `cur_` cursors; a cursor it did not issue is unknown (422)."""

    __slots__ = ("_decoded", "_encoded", "_secret")

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        self._encoded: dict[int, str] = {}  # seq -> cursor: a page walked again signs nothing
        self._decoded: dict[str, int] = {}  # and back: a kept cursor is checked by lookup

    def _mac(self, payload: bytes) -> bytes:
        return hmac.digest(self._secret, payload, hashlib.sha256)[:10]  # one-shot, in C

    def encode(self, seq: int) -> str:
        cursor = self._encoded.get(seq)
        if cursor is None:
            payload = seq.to_bytes(8, "big")
            token = base64.urlsafe_b64encode(payload + self._mac(payload)).rstrip(b"=")
            cursor = _PREFIX + token.decode()
            if len(self._encoded) >= _ENCODED_KEPT:
                self._encoded.clear()
                self._decoded.clear()
            self._encoded[seq] = cursor
            self._decoded[cursor] = seq
        return cursor

    def decode(self, cursor: str) -> int:
        """The position a cursor names, or 422 `param: cursor`."""
        seq = self._decoded.get(cursor)
        if seq is not None:  # signed here: decoding it gives its seq back
            return seq
        if cursor.startswith(_PREFIX) and len(cursor) == len(_PREFIX) + 24:
            try:
                raw = base64.urlsafe_b64decode(cursor[len(_PREFIX) :] + "==")
            except ValueError:
                raw = b""
            payload, mac = raw[:8], raw[8:]
            if len(raw) == 18 and hmac.compare_digest(mac, self._mac(payload)):
                return int.from_bytes(payload, "big")
        raise ValidationError(f"Unknown cursor: '{cursor[:80]}'.", param="cursor")


def newest_first(
    items: Sequence[T],
    *,
    limit: int,
    before: int | None,
    status: str | None = None,
) -> tuple[list[T], bool]:
    """Up to `limit` live items (not deleted; of `status` when given) with seq below `before`,
    newest first, and whether more follow. The test is inline rather than a callback: a page
    tests `limit` + 1 items or more, and a call each was a tenth of a list request."""
    index = len(items) if before is None else bisect_left(items, before, key=_seq)
    page: list[T] = []
    while index > 0:
        index -= 1
        item = items[index]
        if not item.deleted and (status is None or item.status == status):
            if len(page) == limit:
                return page, True
            page.append(item)
    return page, False


def _seq(item: Listed) -> int:
    return item.seq
