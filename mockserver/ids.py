"""Seeded generation of ids, secrets and content digests.

Each stream is its own `random.Random`, seeded from the run's random seed and a stream name
(an account and environment, or "requests"). Streams keep runs reproducible even when tests
interleave requests across accounts: one world's ids never depend on another's traffic.
"""

from __future__ import annotations

import functools
import hashlib
import random

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class IdFactory:
    """Prefixed opaque ids and random values from one seeded stream."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int, stream: str) -> None:
        self._rng = random.Random(f"{seed}:{stream}")

    def new(self, prefix: str, length: int = 24) -> str:
        """An id such as `doc_` + 24 base62 characters."""
        return prefix + "".join(self._rng.choices(ALPHABET, k=length))

    def many(self, prefix: str, count: int, length: int = 24) -> list[str]:
        """`count` ids, exactly those of as many `new` calls, made in bulk (`many_ids`)."""
        return many_ids(self._rng, prefix, count, length)

    def hex(self, nbytes: int = 32) -> str:
        """`nbytes` random bytes as lowercase hex (secrets, content)."""
        return self._rng.randbytes(nbytes).hex()

    def sha256(self, label: str) -> str:
        """Digest of generated content: random bytes salted with a label."""
        return hashlib.sha256(self._rng.randbytes(64) + label.encode()).hexdigest()


def many_ids(rng: random.Random, prefix: str, count: int, length: int = 24) -> list[str]:
    """The ids `count` calls of `IdFactory.new` would make, leaving `rng` where they would.

    A large seed's audit history needs half a million ids; drawn one character at a time they
    took a fifth of its synthesis. `new` consumes two 32-bit Mersenne Twister words a character
    (`random()`), so here the words come in bulk from `getrandbits` (the same stream) and each
    character's index is the top of `(a >> 5) * 62`, computed for all at once with big-int
    arithmetic. The few characters whose exact float `random() * 62` could land differently
    (within 2048 / 2**32 of an index boundary) are recomputed with the very float expression
    `random()` uses.
    """
    out: list[str] = []
    while count > 0:
        chunk = min(count, 2048)
        chars = chunk * length
        text = _indices(rng.getrandbits(64 * chars), chars).translate(_TABLE).decode("ascii")
        out.extend(prefix + text[i : i + length] for i in range(0, chars, length))
        count -= chunk
    return out


_TABLE = bytes(ALPHABET.encode()) + bytes(256 - len(ALPHABET))


@functools.lru_cache(maxsize=4)
def _masks(chars: int) -> tuple[int, int]:
    """Per 64-bit slot: the 27 bits of `a` random() keeps, and 2048 (a push over a boundary)."""
    keep = int.from_bytes(b"\xe0\xff\xff\xff\x00\x00\x00\x00" * chars, "little")
    near = int.from_bytes(b"\x00\x08\x00\x00\x00\x00\x00\x00" * chars, "little")
    return keep, near


def _indices(bits: int, chars: int) -> bytes:
    """Byte j is the alphabet index of character j, from the word pair (a, b) in bits 64j.."""
    keep, near = _masks(chars)
    product = (bits & keep) * len(ALPHABET)
    fast = product.to_bytes(8 * chars, "little")[4::8]
    nudged = (product + near).to_bytes(8 * chars, "little")[4::8]
    if fast == nudged:
        return fast
    words = bits.to_bytes(8 * chars, "little")
    exact = bytearray(fast)
    for j in range(chars):
        if fast[j] != nudged[j]:
            a = int.from_bytes(words[8 * j : 8 * j + 4], "little") >> 5
            b = int.from_bytes(words[8 * j + 4 : 8 * j + 8], "little") >> 6
            exact[j] = int((a * 67108864.0 + b) * (1.0 / 9007199254740992.0) * len(ALPHABET))
    return bytes(exact)
