"""Cursor pagination by position, not offset.

A list is kept in insertion order (ascending `seq`) and served newest first. A cursor encodes
the `seq` of the last item a page returned, signed with the store's secret, so a walk resumes
just below that item: items inserted meanwhile sit above it and can cause neither a repeat nor
a gap, and finding the position is a binary search, whatever the depth.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Protocol, TypeVar

from mockserver.core.cursors import CursorCodec

__all__ = ["CursorCodec", "Listed", "newest_first"]


class Listed(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def deleted(self) -> bool: ...
    @property
    def status(self) -> str: ...


T = TypeVar("T", bound=Listed)


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
