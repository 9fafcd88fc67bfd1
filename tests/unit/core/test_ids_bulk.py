"""Ids made in bulk (`IdFactory.many`, for a seeded audit history) are exactly those `new`
would have made one by one, and leave the stream where `new` would."""

from __future__ import annotations

import hashlib
import random

import pytest

from mockserver.core.ids import ALPHABET, IdFactory, _indices


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


class _Reference:
    """The stream as plain `random.Random` calls make it: what every value must equal."""

    def __init__(self, seed: int, stream: str) -> None:
        self.rng = random.Random(f"{seed}:{stream}")

    def new(self, prefix: str, length: int = 24) -> str:
        return prefix + "".join(self.rng.choices(ALPHABET, k=length))


@pytest.mark.parametrize("trial", range(60))
def test_interleaved_values_are_those_of_plain_random_calls(trial: int) -> None:
    """Ids, odd-sized byte strings, secrets, digests and bulk ids cut from the buffered words
    equal what `choices`/`randbytes` give in the same order, across block refills."""
    ops = random.Random(trial)
    ours, ref = IdFactory(trial, "a/b"), _Reference(trial, "a/b")
    for _ in range(ops.randrange(50, 400)):
        op = ops.randrange(6)
        if op == 0:
            length = ops.choice([24, 24, 1, 5, 32, 700])
            assert ours.new("doc_", length) == ref.new("doc_", length)
        elif op == 1:
            n = ops.choice([0, 1, 3, 5, 7, 16, 33, 4100])
            assert ours.randbytes(n) == ref.rng.randbytes(n)
        elif op == 2:
            assert ours.hex() == ref.rng.randbytes(32).hex()
        elif op == 3:
            label = f"label{ops.randrange(9)}"
            digest = hashlib.sha256(ref.rng.randbytes(64) + label.encode()).hexdigest()
            assert ours.sha256(label) == digest
        elif op == 4:
            count = ops.randrange(0, 60)
            assert ours.many("evt_", count) == [ref.new("evt_") for _ in range(count)]
        else:
            assert ours.new("req_") == ref.new("req_")
