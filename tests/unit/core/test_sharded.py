"""The sharded index (mockserver/core/sharded.py) answers as a dict would, and spreads its keys."""

from __future__ import annotations

from mockserver.core.sharded import SHARDS, ShardedDict


def test_it_maps_keys_as_a_dict_does() -> None:
    index: ShardedDict[int] = ShardedDict()
    plain: dict[str, int] = {}
    for n in range(5000):
        key = f"doc_{n:024d}"
        index[key] = plain[key] = n
    index["doc_" + "0" * 24] = plain["doc_" + "0" * 24] = -1  # a store over an existing key
    assert len(index) == len(plain) == 5000
    assert all(index[key] == value and index.get(key) == value for key, value in plain.items())
    assert "doc_" + "9" * 24 not in index
    assert index.get("doc_" + "9" * 24) is None
    assert "doc_" + "0" * 23 + "7" in index


def test_a_copy_is_independent() -> None:
    index: ShardedDict[list[int]] = ShardedDict()
    index["a"] = [1]
    copy = index.copy()
    copy["b"] = [2]
    index["a"] = [3]
    assert (index.get("b"), copy["a"]) == (None, [1])
    assert copy["b"] == [2]
    assert len(index) == 1
    assert len(copy) == 2


def test_keys_spread_over_every_shard() -> None:
    index: ShardedDict[int] = ShardedDict()
    for n in range(SHARDS * 200):
        index[f"evt_{n}"] = n
    sizes = [len(shard) for shard in index._shards]
    assert len(sizes) == SHARDS
    assert min(sizes) > 100
    assert max(sizes) < 300
