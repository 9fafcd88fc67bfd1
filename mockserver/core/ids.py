"""Seeded generation of ids, secrets and content digests.

Each stream is its own `random.Random`, seeded from the run's random seed and a stream name
(an account and environment, or "requests"). Streams keep runs reproducible even when tests
interleave requests across accounts: one world's ids never depend on another's traffic.
"""

from __future__ import annotations

import hashlib
import random

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class IdFactory:
    """Prefixed opaque ids and random values from one seeded stream."""

    def __init__(self, seed: int, stream: str) -> None:
        self.name = f"{seed}:{stream}"
        self._rng = random.Random(self.name)
        self.fresh = True  # no value drawn yet: a snapshot saves the stream as seeded

    def saved(self) -> tuple[str, random.Random | None]:
        """(stream name, generator, None while fresh): what a snapshot keeps of the stream."""
        return self.name, None if self.fresh else self._rng

    @classmethod
    def resumed(cls, name: str, rng: random.Random | None) -> IdFactory:
        """The stream `saved` described: seeded from `name` again if it had no generator."""
        ids = cls(0, "")
        ids.name = name
        ids._rng = random.Random(name) if rng is None else rng
        ids.fresh = rng is None
        return ids

    def new(self, prefix: str, length: int = 24) -> str:
        """An id such as `doc_` + 24 base62 characters."""
        self.fresh = False
        return prefix + "".join(self._rng.choices(ALPHABET, k=length))

    def many(self, prefix: str, count: int, length: int = 24) -> list[str]:
        """`count` ids, those of as many `new` calls."""
        return [self.new(prefix, length) for _ in range(count)]

    def randbytes(self, nbytes: int) -> bytes:
        """`nbytes` random bytes."""
        self.fresh = False
        return self._rng.randbytes(nbytes)

    def hex(self, nbytes: int = 32) -> str:
        """`nbytes` random bytes as lowercase hex (secrets, content)."""
        return self.randbytes(nbytes).hex()

    def sha256(self, label: str) -> str:
        """Digest of generated content: random bytes salted with a label."""
        return hashlib.sha256(self.randbytes(64) + label.encode()).hexdigest()
