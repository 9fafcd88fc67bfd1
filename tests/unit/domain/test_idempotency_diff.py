"""What differs between two requests that reuse an idempotency key, from stored summaries."""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.domain.idempotency import differs, summarise


def summary(body: Any, method: str = "POST", region: str = "us", path: str = "/v1/x") -> bytes:
    raw = orjson.dumps(body)
    return summarise(method, region, path, body, raw, True)


def test_members_that_differ_are_json_pointers() -> None:
    first = summary({"title": "a", "a/b": 1, "t~": [1], "same": {"k": 1}})
    second = summary({"title": "b", "a/b": 2, "t~": [1, 2], "same": {"k": 1}, "new": 0})
    assert differs(first, second) == ["/a~1b", "/new", "/title", "/t~0"]


def test_key_order_and_nesting_order_do_not_matter() -> None:
    first = summary({"a": {"x": 1, "y": 2}, "b": 1})
    # Told apart by nothing: differs is only asked of requests whose fingerprints differ, so
    # what no digest tells apart is a collision, and the whole body is named.
    assert differs(first, summary({"b": 1, "a": {"y": 2, "x": 1}})) == [""]
    assert differs(first, summary({"b": 1, "a": {"y": 3, "x": 1}})) == ["/a"]


def test_method_region_and_path() -> None:
    first = summary({"a": 1})
    assert differs(first, summary({"a": 1}, method="PUT")) == ["method"]
    assert differs(first, summary({"a": 1}, region="eu")) == ["path"]
    assert differs(first, summary({"a": 2}, path="/v1/y")) == ["path", "/a"]


def test_bodies_that_are_not_objects_compare_whole() -> None:
    assert differs(summary([1]), summary([2])) == [""]
    raw_a = summarise("POST", "us", "/v1/x", None, b"not json", False)
    raw_b = summarise("POST", "us", "/v1/x", None, b"other", False)
    assert differs(raw_a, raw_b) == [""]
    assert differs(raw_a, raw_a) == [""]
    assert differs(summary({"a": 1}), raw_a) == ["", "/a"]


def test_the_summary_stays_small_for_a_large_body() -> None:
    body = {"title": "x" * 100_000, "metadata": {str(i): "v" * 100 for i in range(50)}}
    assert len(summary(body)) < 100
