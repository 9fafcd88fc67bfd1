"""The request patterns the document gains where a rule fits a schema hold exactly the rule (the
period's real dates) or a superset of what the server takes (a condition's characters), so a
request the schema refuses is one the server refuses too."""

from __future__ import annotations

import re
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mockserver.domain.conditions import ConditionSyntaxError, parse
from mockserver.openapi.requests import CONDITION_PATTERN, REAL_DATE

DATE = re.compile(REAL_DATE)
CONDITION = re.compile(CONDITION_PATTERN)
YEARS = (0, 1, 4, 99, 100, 400, 1600, 1900, 1999, 2000, 2023, 2024, 2100, 2400, 9996, 9999)


def is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("year", YEARS)
def test_the_date_pattern_takes_exactly_the_real_dates(year: int) -> None:
    for month in range(14):
        for day in range(33):
            text = f"{year:04d}-{month:02d}-{day:02d}"
            assert bool(DATE.fullmatch(text)) == is_date(text), text


def parses(text: str) -> bool:
    try:
        parse(text)
    except ConditionSyntaxError:
        return False
    return True


PIECES = [
    "metadata.kind", "status", "a", "and", "or", "not", "in", "true", "null", "==", "!=", ">=",
    "<", "(", ")", "[", "]", ",", "-3", "2.5", '"x"', "'y'", '"\\n"', '"\\u00e9"', '"\\ud800"',
    '"\\q"', "'\\''", '"é"', " ", "\t", "\n", "\u00a0", "=", "?", "&", "é", '"', "'", "\\",
]  # fmt: skip
soups = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(soups | st.text(max_size=12))
def test_every_condition_the_server_takes_matches_the_pattern(text: str) -> None:
    if parses(text):
        assert CONDITION.fullmatch(text), text
