"""Seeded generation of ids, secrets and content digests.

Each stream is its own `random.Random`, seeded from the run's random seed and a stream name
(an account and environment, or "requests"). Streams keep runs reproducible even when tests
interleave requests across accounts: one world's ids never depend on another's traffic.
"""

from __future__ import annotations

import functools
import hashlib
import random
from typing import Final

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class IdFactory:
    """Prefixed opaque ids and random values from one seeded stream.

    Every value is exactly what `random.Random` calls would give (`choices` for ids,
    `randbytes` for secrets), in the same order, so streams stay as they were. They are cut
    from a buffer of the stream's 32-bit words drawn a block at a time, with the alphabet
    index of every word pair worked out for the whole block at once (`_indices`), which is
    cheaper than `choices(k=24)` per id; every request makes at least one.
    """

    __slots__ = ("_bits", "_count", "_even", "_odd", "_pos", "_rendered", "_rng", "_seed")

    def __init__(self, seed: int, stream: str) -> None:
        # Seeded on the first draw, with a short first block: a reset makes several streams,
        # and most of them give one value or none before the next.
        self._seed = f"{seed}:{stream}"
        self._rng: random.Random | None = None
        self._bits = 0  # the 32-bit words drawn, in order, word i at bit 32 i
        self._count = 0  # how many words `_bits` holds
        self._rendered: bytes | None = b""  # `_bits` as little-endian bytes, once needed
        self._pos = 0  # words already used
        self._even = b""  # alphabet index of the pair at words (2j, 2j + 1)
        self._odd = b""  # of the pair at words (2j + 1, 2j + 2): made when first needed

    def saved(self) -> tuple[str, random.Random | None, int, int, int]:
        """(stream name, generator, words drawn, how many, how many used): all a snapshot
        needs to go on giving the same values."""
        return self._seed, self._rng, self._bits, self._count, self._pos

    @classmethod
    def resumed(
        cls, name: str, rng: random.Random | None, bits: int, count: int, pos: int
    ) -> IdFactory:
        """The stream `saved` described (the alphabet indexes are worked out again)."""
        ids = cls(0, "")
        ids._seed, ids._rng, ids._bits, ids._count, ids._pos = name, rng, bits, count, pos
        ids._rendered = None if count else b""
        ids._even = _indices(bits, count >> 1) if count else b""
        ids._odd = b""
        return ids

    def _take(self, count: int) -> int:
        """Reserve `count` words; their first index in `_words` (refilling when short)."""
        pos = self._pos
        if pos + count > self._count:
            self._refill(count)
            pos = 0
        self._pos = pos + count
        return pos

    def _refill(self, count: int) -> None:
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(self._seed)
            block = max(FIRST_BLOCK_WORDS, count)
        else:
            block = max(BLOCK_WORDS, count)
        left = self._count - self._pos  # words not used yet come first
        fresh = rng.getrandbits(32 * block)
        # Kept as an int: ids need no bytes of the words (`_indices` masks to whole pairs),
        # so a stream that only makes ids never renders them.
        bits = (self._bits >> (32 * self._pos)) | (fresh << (32 * left))
        self._bits, self._count, self._pos, self._rendered = bits, left + block, 0, None
        self._even = _indices(bits, (left + block) >> 1)
        self._odd = b""

    @property
    def _words(self) -> bytes:
        """The words as little-endian bytes (secrets, odd-aligned ids), rendered once a block."""
        words = self._rendered
        if words is None:
            words = self._rendered = self._bits.to_bytes(4 * self._count, "little")
        return words

    def _odd_indices(self) -> bytes:
        """Pairs starting at an odd word: only after a value of an odd number of words."""
        if not self._odd:
            words = self._words
            odd = (len(words) - 4) >> 3
            self._odd = _indices(int.from_bytes(words[4 : 4 + 8 * odd], "little"), odd)
        return self._odd

    @property
    def fresh(self) -> bool:
        """True until the stream's first value is drawn."""
        return self._count == 0

    def new(self, prefix: str, length: int = 24) -> str:
        """An id such as `doc_` + 24 base62 characters."""
        pos = self._take(2 * length)
        half = pos >> 1
        indices = (self._odd_indices() if pos & 1 else self._even)[half : half + length]
        return prefix + indices.translate(_TABLE).decode("ascii")

    def many(self, prefix: str, count: int, length: int = 24) -> list[str]:
        """`count` ids, those of as many `new` calls (a seeded history takes half a million)."""
        new = self.new
        return [new(prefix, length) for _ in range(count)]

    def randbytes(self, nbytes: int) -> bytes:
        """What `random.Random.randbytes(nbytes)` would give at this point of the stream."""
        bits = 8 * nbytes
        if bits % 32 == 0:
            pos = self._take(bits >> 5)
            return self._words[4 * pos : 4 * pos + nbytes]
        # getrandbits keeps the top bits of a last, partial word.
        pos = self._take(-(-bits // 32))
        whole = (bits >> 5) * 4
        last = int.from_bytes(self._words[4 * pos + whole : 4 * pos + whole + 4], "little")
        tail = (last >> (32 - bits % 32)).to_bytes(nbytes - whole, "little")
        return self._words[4 * pos : 4 * pos + whole] + tail

    def hex(self, nbytes: int = 32) -> str:
        """`nbytes` random bytes as lowercase hex (secrets, content)."""
        return self.randbytes(nbytes).hex()

    def sha256(self, label: str) -> str:
        """Digest of generated content: random bytes salted with a label."""
        return _SHA256(self.randbytes(64) + label.encode()).hexdigest()


BLOCK_WORDS = 1024  # 21 ids of 24 characters a block
_SHA256: Final = hashlib.sha256  # bound once: compiled, a C static, not a module lookup a call
FIRST_BLOCK_WORDS = 64  # one id of 24 characters and a secret of 64 bytes


_TABLE = bytes(ALPHABET.encode()) + bytes(256 - len(ALPHABET))


@functools.lru_cache(maxsize=4)
def _masks(chars: int) -> tuple[int, int, int]:
    """Per 64-bit slot: the 27 bits of `a` random() keeps, 2048 (a push over a boundary), and
    the slot's high half (where an index lives)."""
    keep = int.from_bytes(b"\xe0\xff\xff\xff\x00\x00\x00\x00" * chars, "little")
    near = int.from_bytes(b"\x00\x08\x00\x00\x00\x00\x00\x00" * chars, "little")
    high = int.from_bytes(b"\x00\x00\x00\x00\xff\xff\xff\xff" * chars, "little")
    return keep, near, high


def _indices(bits: int, chars: int) -> bytes:
    """Byte j is the alphabet index of character j, from the word pair (a, b) in bits 64j..
    (bits above the `chars` pairs are ignored)."""
    keep, near, high = _masks(chars)
    product = (bits & keep) * len(ALPHABET)  # a slot stays below 2**38: no carry between slots
    fast = product.to_bytes(8 * chars, "little")[4::8]
    # A character is near a boundary when the push carries into its slot's high half (the
    # index byte then differs), which the XOR shows without rendering the pushed bytes.
    if not ((product + near) ^ product) & high:
        return fast
    nudged = (product + near).to_bytes(8 * chars, "little")[4::8]
    words = (bits & ((1 << (64 * chars)) - 1)).to_bytes(8 * chars, "little")
    exact = bytearray(fast)
    for j in range(chars):
        if fast[j] != nudged[j]:
            a = int.from_bytes(words[8 * j : 8 * j + 4], "little") >> 5
            b = int.from_bytes(words[8 * j + 4 : 8 * j + 8], "little") >> 6
            exact[j] = int((a * 67108864.0 + b) * (1.0 / 9007199254740992.0) * len(ALPHABET))
    return bytes(exact)
