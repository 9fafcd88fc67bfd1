"""The `/v1` query parser gives exactly Starlette's QueryParams, for any query string."""

from __future__ import annotations

import random

import httpx
import pytest
from starlette.datastructures import ImmutableMultiDict, QueryParams

from mockserver.web.query import parse_query

ATOMS = ["", "a", "limit", "=", "&", "20", "x=", "=y", "&&", "a=b=c", "%20", "%zz", "+", ";"]
FIXED = [b"", b"&", b"=", b"limit=20", b"a&b", b"a=1&a=2", b"a=&b", b"&a=1&&b=2&", b"x=\xc3\xa9"]


def _random_queries(count: int) -> list[bytes]:
    rng = random.Random(3)
    return [
        "".join(rng.choice(ATOMS) for _ in range(rng.randrange(1, 7))).encode()
        for _ in range(count)
    ]


@pytest.mark.parametrize("raw", FIXED + _random_queries(400))
def test_same_items_values_and_lookups_as_starlette(raw: bytes) -> None:
    theirs, ours = QueryParams(raw), parse_query(raw)
    assert ours.multi_items() == theirs.multi_items()
    assert list(ours.items()) == list(theirs.items())
    assert str(ours) == str(theirs)
    for name in ("limit", "a", "x", "missing"):
        assert ours.get(name) == theirs.get(name)
        assert ours.get(name, "d") == theirs.get(name, "d")
    assert ours == theirs
    assert theirs == ours


def test_equality_and_hashing_as_a_query_params() -> None:
    ours = parse_query(b"x=1")
    assert ours != ImmutableMultiDict([("x", "1")])
    assert ours != QueryParams(b"x=2")
    with pytest.raises(TypeError):
        hash(ours)


def test_a_list_request_reads_its_query_through_http(api: httpx.Client) -> None:
    page = api.get("/v1/documents?limit=2&status=draft").json()
    assert len(page["data"]) <= 2
    assert {d["status"] for d in page["data"]} <= {"draft"}
    assert api.get("/v1/documents?limit=1&limit=2").status_code == 422
