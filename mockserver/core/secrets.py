"""Constant-time comparison of a value a client sent with the value expected of it.

`hmac.compare_digest` raises TypeError for a `str` holding a non-ASCII character, so comparing
a query parameter, header or form field as `str` turns a wrong value into a 500. `same_secret`
compares UTF-8 bytes instead (`surrogatepass` keeps a lone surrogate, which only an error
handler's decoding makes, from raising too): any value, of any length or alphabet, is then just
equal or not.
"""

from __future__ import annotations

import hmac


def as_bytes(value: str | bytes) -> bytes:
    """`value` as bytes: a `str` in UTF-8, lone surrogates included."""
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


def same_secret(given: str | bytes, expected: str | bytes) -> bool:
    """Whether `given` equals `expected`, in time that does not depend on where they differ."""
    return hmac.compare_digest(as_bytes(given), as_bytes(expected))
