"""A dict split into shards, for the indexes with an entry per stored object.

CPython grows a dict by moving every entry into a table twice the size, in one go: with
millions of documents stored, that stalls the one request that triggers it. Split by the
key's hash into `SHARDS` dicts, a resize moves at most about 1/SHARDS of the entries. It
offers what those indexes use (lookups, stores, membership, size, a copy) and no iteration,
so nothing can come to depend on an order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

SHARDS = 64  # a power of two: the shard is the hash's low bits
_MASK = SHARDS - 1

V = TypeVar("V")


class ShardedDict(Generic[V]):
    """`str` keys to values, as a dict would map them."""

    __slots__ = ("_shards",)

    def __init__(self, shards: list[dict[str, V]] | None = None) -> None:
        self._shards = shards if shards is not None else [{} for _ in range(SHARDS)]

    def get(self, key: str) -> V | None:
        return self._shards[hash(key) & _MASK].get(key)

    def __getitem__(self, key: str) -> V:
        return self._shards[hash(key) & _MASK][key]

    def __setitem__(self, key: str, value: V) -> None:
        self._shards[hash(key) & _MASK][key] = value

    def __contains__(self, key: str) -> bool:
        return key in self._shards[hash(key) & _MASK]

    def __len__(self) -> int:
        return sum(len(shard) for shard in self._shards)

    def items(self) -> Iterator[tuple[str, V]]:
        """Every (key, value), shard by shard (no order to rely on)."""
        for shard in self._shards:
            yield from shard.items()

    def copy(self) -> ShardedDict[V]:
        """An independent index of the same entries (the values are shared)."""
        return ShardedDict([dict(shard) for shard in self._shards])
