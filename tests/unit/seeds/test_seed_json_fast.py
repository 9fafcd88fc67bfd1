"""The orjson fast path for one-line JSON seed items gives exactly what the exact json path
gives, or steps aside: duplicate keys, floats and big ints always take the exact path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mockserver.core.errors import SeedError
from mockserver.seeds.generate import generate_seed
from mockserver.seeds.loader import load_seed_text
from mockserver.seeds.parser import _DECODER, _fast_object, _NotJson, parse_yaml


def exact(obj: str) -> tuple[bool, Any]:
    """What the json decoder with the duplicate-key and float hooks makes of `obj`."""
    try:
        value, end = _DECODER.raw_decode(obj)
    except (ValueError, _NotJson):
        return False, None
    return end == len(obj), value


def agrees(obj: str) -> bool:
    """The fast path either steps aside or gives the exact path's value."""
    fast = _fast_object(obj)
    if fast is None:
        return True
    ok, value = exact(obj)
    return ok and fast == value and json.dumps(fast) == json.dumps(value)


@pytest.mark.parametrize(
    "obj",
    [
        '{"a": 1}',
        "{}",
        '{"a": "say \\"hi\\"", "b": {"c": [1, 2, {"d": null}]}}',
        '{"a": 9223372036854775807, "b": -9223372036854775808, "c": -0}',
        '{"a": "ends with a backslash \\\\", "b": true}',
        '{"a": {"b": 1}, "c": [{"d": false}]}',
        '{"condition": "metadata.kind in [\\"msa\\", \\"sow\\"]"}',
    ],
)
def test_fast_path_takes_plain_objects_and_matches_the_exact_path(obj: str) -> None:
    assert _fast_object(obj) is not None
    assert agrees(obj)


@pytest.mark.parametrize(
    "obj",
    [
        '{"a": 1, "a": 2}',  # duplicate key: the exact path reports it with its line
        '{"a": {"b": 1, "b": 1}}',
        '{"a": [{"b": 1, "b": 2}]}',
        '{"a": "x", "b": "y": 1}',
        '{"a" : 1}',  # spaced key: left to the exact path
        '{"a": 1.5}',
        '{"a": 1e5}',
        '{"a": [1, 2.0]}',
        '{"a": 18446744073709551616}',  # orjson reads it as a float
        '{"a": -9223372036854775809}',
        '{"a": 1e400}',
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": "\\ud800"}',
        '{"a": 1}, {"b": 2}',
        '{"a": "x\\":y", "b": 2}',  # a `":` inside a string: counted as a key, so exact path
        '{"a\\":": 1}',
        '{"a": 01}',
    ],
)
def test_fast_path_steps_aside(obj: str) -> None:
    assert _fast_object(obj) is None


def test_a_duplicate_key_keeps_its_file_and_line() -> None:
    text = 'version: 1\naccounts:\n  - {"id": "acct_a", "id": "acct_b"}\n'
    with pytest.raises(SeedError) as caught:
        load_seed_text(text, "dup.yaml")
    assert str(caught.value) == "dup.yaml:3: duplicate key 'id'"


def test_floats_and_big_ints_read_as_yaml_reads_them() -> None:
    text = 'items:\n  - {"a": 1e5, "b": 1.5, "c": 18446744073709551616, "d": "x\\": y"}\n'
    assert parse_yaml(text) == {
        "items": [{"a": "1e5", "b": 1.5, "c": 18446744073709551616, "d": 'x": y'}]
    }


def test_a_generated_seed_takes_the_fast_path_and_matches_the_exact_one() -> None:
    lines = [line.strip()[2:] for line in generate_seed(documents=300).splitlines()]
    objects = [line for line in lines if line.startswith("{")]
    assert len(objects) > 300
    for obj in objects:
        fast = _fast_object(obj)
        assert fast is not None
        assert (True, fast) == exact(obj)


json_leaf = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(['":', '" :', "\\", '\\"', '\\":'])
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=6) | st.sampled_from(['":', "\\"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(
    value=st.dictionaries(st.text(max_size=8), json_value, max_size=4),
    separators=st.sampled_from([(", ", ": "), (",", ":"), (", ", " : ")]),
    duplicate=st.booleans(),
)
def test_fast_path_agrees_with_the_exact_path(
    value: dict[str, Any], separators: tuple[str, str], duplicate: bool
) -> None:
    obj = json.dumps(value, separators=separators)
    if duplicate and value:
        key = json.dumps(next(iter(value)))
        obj = obj[:-1] + f"{separators[0]}{key}{separators[1]}1}}"
    assert agrees(obj)


def test_deep_nesting_is_left_to_the_exact_path() -> None:
    obj = '{"a": ' + "[" * 1020 + "]" * 1020 + "}"
    assert _fast_object(obj) is None
