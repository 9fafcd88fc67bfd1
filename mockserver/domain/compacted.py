"""Compacted bytes: bytes that outlive the request that made them, trimmed to their size.

orjson (3.12 and later) returns bytes objects whose allocation is a block of a fixed size,
much larger than a typical answer, whatever the content. That is free for an answer sent and
dropped, and costly for bytes the mock holds on to: a document's cached rendering, a journal
entry, a webhook envelope. `compacted` copies bytes into an object of exactly their length;
every place that stores bytes orjson made (or bytes that may be them) passes them through it.
"""

from __future__ import annotations

from typing import Any

import orjson


def compacted(raw: bytes) -> bytes:
    """`raw` in an object of exactly its size (a copy; small next to the block it frees)."""
    return bytes(memoryview(raw))


def dumps_compacted(value: Any, option: int | None = None) -> bytes:
    """`orjson.dumps(value, option=option)`, for bytes that are stored."""
    return compacted(orjson.dumps(value, option=option))
