"""The estimate of what parsing a JSON text builds is at least what orjson builds, for the
shapes that cost most per byte, and does not depend on where the text is cut in windows."""

from __future__ import annotations

import tracemalloc

import orjson
import pytest

from mockserver.engine.snapshots import json_cost

N = 20_000
EMOJI = "\U0001f600".encode()  # stored 4 bytes a character


def _list(item: bytes, count: int = N) -> bytes:
    return b"[" + b",".join([item] * count) + b"]"


SHAPES = {
    "empty dicts": _list(b"{}"),
    "empty lists": _list(b"[]"),
    "one-key dicts": _list(b'{"a":1}'),
    "nine-key dicts": _list(b'{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}', N // 10),
    "short strings": _list(b'"a"'),
    "floats": _list(b"1.5"),
    "big integers": _list(b"1000000000"),
    "unique keys": b"{" + b",".join(b'"%d":1.5' % i for i in range(N)) + b"}",
    "unique keys of dicts": b"{" + b",".join(b'"%d":{}' % i for i in range(N)) + b"}",
    "nested lists": b"[" * 500 + b"]" * 500,
    "strings of 4-byte characters": _list(b'"' + b"a" * 100 + EMOJI + b'"', N // 10),
    "escapes": _list(b'"\\"\\\\\\u0041"'),
}


def _built(data: bytes) -> int:
    tracemalloc.start()
    try:
        value = orjson.loads(data)
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        del value


@pytest.mark.parametrize("data", SHAPES.values(), ids=SHAPES.keys())
def test_the_estimate_is_at_least_what_parsing_builds(data: bytes) -> None:
    assert json_cost.estimate(data) >= _built(data)


@pytest.mark.parametrize("window", [1, 2, 3, 7, 64])
def test_windows_cut_anywhere_give_the_same_estimate(
    window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = b'{"a\\\\":"x\\"y{[,:","b":[1,2,{}],"c":"\\\\\\\\\\""}'
    whole = json_cost.estimate(text)
    monkeypatch.setattr(json_cost, "_WINDOW", window)
    assert json_cost.estimate(text) == whole
