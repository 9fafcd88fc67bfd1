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

    __slots__ = ("_rng",)

    def __init__(self, seed: int, stream: str) -> None:
        self._rng = random.Random(f"{seed}:{stream}")

    def new(self, prefix: str, length: int = 24) -> str:
        """An id such as `doc_` + 24 base62 characters."""
        return prefix + "".join(self._rng.choices(ALPHABET, k=length))

    def hex(self, nbytes: int = 32) -> str:
        """`nbytes` random bytes as lowercase hex (secrets, content)."""
        return self._rng.randbytes(nbytes).hex()

    def sha256(self, label: str) -> str:
        """Digest of generated content: random bytes salted with a label."""
        return hashlib.sha256(self._rng.randbytes(64) + label.encode()).hexdigest()
