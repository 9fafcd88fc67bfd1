"""The `/v1` query parser gives exactly what Starlette's QueryParams holds, for any query string."""

from __future__ import annotations

import random

import httpx
import pytest
from starlette.datastructures import QueryParams

from mockserver.engine.request import query_pairs

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
    theirs, pairs = QueryParams(raw), query_pairs(raw)
    ours = dict(pairs)  # what an operation reads its values from
    assert pairs == theirs.multi_items()
    assert list(ours.items()) == list(theirs.items())
    assert str(QueryParams(pairs)) == str(theirs)
    for name in ("limit", "a", "x", "missing"):
        assert ours.get(name) == theirs.get(name)
        assert ours.get(name, "d") == theirs.get(name, "d")
    assert QueryParams(pairs) == theirs


def test_a_list_request_reads_its_query_through_http(api: httpx.Client) -> None:
    page = api.get("/v1/documents?limit=2&status=draft").json()
    assert len(page["data"]) <= 2
    assert {d["status"] for d in page["data"]} <= {"draft"}
    assert api.get("/v1/documents?limit=1&limit=2").status_code == 422
