"""`same_secret`: any two values compare, whatever their alphabet or length."""

from __future__ import annotations

import pytest

from mockserver.core.secrets import same_secret


@pytest.mark.parametrize(
    "given", ["\u00e9", "\ud800", "\udcff" * 3, "", "a" * 100_000, b"\xff\xfe", "abc\x00"]
)
def test_any_value_is_just_different(given: str | bytes) -> None:
    assert same_secret(given, "abc") is False


@pytest.mark.parametrize("value", ["abc", "\u00e9t\u00e9", "\U0001f600", "\ud800"])
def test_equal_values_are_the_same(value: str) -> None:
    assert same_secret(value, value)
    assert same_secret(value, value.encode("utf-8", "surrogatepass"))
