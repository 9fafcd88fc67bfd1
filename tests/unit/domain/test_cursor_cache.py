"""Cursors kept by seq are the cursors a fresh codec signs, before and after the cache is full."""

from __future__ import annotations

import httpx
import pytest

from mockserver.core.cursors import _ENCODED_KEPT, CursorCodec
from mockserver.core.errors import ValidationError


def test_kept_cursors_equal_freshly_signed_ones() -> None:
    codec = CursorCodec(b"k" * 32)
    seqs = [*range(_ENCODED_KEPT + 10), 5, 7, 2**40]
    for seq in seqs:
        first = codec.encode(seq)
        assert codec.encode(seq) == first
        assert first == CursorCodec(b"k" * 32).encode(seq)
        assert codec.decode(first) == seq
    assert CursorCodec(b"other").encode(5) != codec.encode(5)


def test_the_same_page_twice_gives_the_same_cursor_over_http(api: httpx.Client) -> None:
    first = api.get("/v1/documents?limit=1").json()["next_cursor"]
    assert api.get("/v1/documents?limit=1").json()["next_cursor"] == first
    second = api.get(f"/v1/documents?limit=1&cursor={first}").json()
    assert second["data"][0]["id"] != api.get("/v1/documents?limit=1").json()["data"][0]["id"]


def test_kept_cursors_decode_and_others_are_still_checked() -> None:
    codec = CursorCodec(b"k" * 32)
    cursor = codec.encode(42)
    assert codec.decode(cursor) == 42
    assert CursorCodec(b"k" * 32).decode(cursor) == 42  # the same without a kept entry
    tampered = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
    for bad in (tampered, cursor + "x", "cur_", CursorCodec(b"other").encode(42)):
        with pytest.raises(ValidationError):
            codec.decode(bad)
