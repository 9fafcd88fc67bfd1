"""Timestamp rendering: RFC 3339 text over datetime's whole range, and an error past it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockserver.core.clock import format_ts, parse_ts

FIRST, LAST = -62_135_596_800, 253_402_300_799  # 0001-01-01T00:00:00Z, 9999-12-31T23:59:59Z


def by_datetime(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@given(st.integers(min_value=FIRST, max_value=LAST))
def test_format_ts_matches_datetime_over_its_whole_range(seconds: int) -> None:
    assert format_ts(seconds) == by_datetime(seconds)


@pytest.mark.parametrize(
    ("epoch", "text"),
    [
        (LAST, "9999-12-31T23:59:59Z"),
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (1_768_467_600.9, "2026-01-15T09:00:00Z"),  # whole seconds, truncated
    ],
)
def test_format_ts_edges(epoch: float, text: str) -> None:
    assert format_ts(epoch) == text
    assert format_ts(parse_ts(text)) == text


def test_format_ts_at_year_one_is_what_datetime_gives() -> None:
    assert format_ts(FIRST) == by_datetime(FIRST)  # "1-01-01T00:00:00Z": glibc does not pad %Y


@pytest.mark.parametrize("epoch", [LAST + 1, FIRST - 1, 10**20])
def test_format_ts_beyond_year_9999_still_raises(epoch: int) -> None:
    with pytest.raises((ValueError, OverflowError, OSError)):
        format_ts(epoch)


def test_format_ts_outside_datetime_raises_even_after_a_render() -> None:
    format_ts(0)
    with pytest.raises(ValueError, match="out of range"):
        format_ts(LAST + 1)
    with pytest.raises(ValueError, match="out of range"):
        format_ts(FIRST - 1)
