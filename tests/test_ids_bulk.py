"""Ids made in bulk (`IdFactory.many`, for a seeded audit history) are exactly those `new`
would have made one by one, and leave the stream where `new` would."""

from __future__ import annotations

import random

import pytest

from mockserver.ids import ALPHABET, IdFactory, _indices


@pytest.mark.parametrize("seed", [0, 1, 7, 2024])
def test_ids_made_in_bulk_are_those_made_one_by_one(seed: int) -> None:
    one, bulk = IdFactory(seed, "history/a/b"), IdFactory(seed, "history/a/b")
    assert bulk.many("evt_", 5000) == [one.new("evt_") for _ in range(5000)]
    assert bulk.new("doc_") == one.new("doc_")  # the stream is left where it would be


def test_characters_near_an_index_boundary_are_exact() -> None:
    rng = random.Random(3)
    for _ in range(20000):
        boundary = (rng.randrange(61) + 1) << 27  # where (a >> 5) * 62 reaches an index
        a = (((boundary // 62) - rng.randrange(3)) << 5) | rng.randrange(32)
        b = rng.getrandbits(32)
        exact = int(((a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0) * 62)
        assert _indices(a | (b << 32), 1)[0] == exact
        assert ALPHABET[exact]
