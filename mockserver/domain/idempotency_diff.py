"""What differs between two requests that reuse one `Idempotency-Key`, for the journal's
`explain` of the 409 that refuses the second.

The first request's record keeps a summary rather than its body: its method, routed region and
path, and a 4-byte digest (CRC-32) of each top-level member of its JSON body (or of the whole
body when that is not a JSON object), packed into one bytes object. That costs a few bytes a
member however large the body is, gives the collector nothing to walk (see
domain.idempotency), and names the differing members as JSON Pointers (`/title`), `method` or
`path`."""

from __future__ import annotations

import zlib
from typing import Any

from mockserver.audit.log import canonical

_LENGTH = 4  # bytes of each length prefix
_DIGEST = 4  # a CRC-32: enough to tell members apart in a diagnostic


def _digest(data: bytes) -> bytes:
    return zlib.crc32(data).to_bytes(_DIGEST, "big")


def _pointer(name: str) -> str:
    return "/" + name.replace("~", "~0").replace("/", "~1")


def _field(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return len(data).to_bytes(_LENGTH, "big") + data


def summarise(method: str, region: str, path: str, value: Any, raw: bytes, is_json: bool) -> bytes:
    """What a record keeps of its first request to say later what differs: `value` is the
    parsed body (`is_json`), `raw` its bytes."""
    parts = [_field(f"{method}\n{region}\n{path}")]
    if type(value) is dict:
        for name, member in value.items():
            parts.append(_field(_pointer(str(name))))
            parts.append(_digest(canonical(member)))
    else:
        whole = canonical(value) if is_json else b"raw:" + raw
        parts.append(_field(""))
        parts.append(_digest(whole))
    return b"".join(parts)


def _unpack(summary: bytes) -> tuple[str, dict[str, bytes]]:
    """(method, region and path as one line each, member pointer -> digest)."""
    where = ""
    members: dict[str, bytes] = {}
    at = 0
    while at < len(summary):
        size = int.from_bytes(summary[at : at + _LENGTH], "big")
        at += _LENGTH
        text = summary[at : at + size].decode("utf-8", "surrogatepass")
        at += size
        if not at - size - _LENGTH:
            where = text
        else:
            members[text] = summary[at : at + _DIGEST]
            at += _DIGEST
    return where, members


def differs(first: bytes, second: bytes) -> list[str]:
    """`method`, `path` (the routed region counts as part of it) and the JSON Pointers of the
    body members that are not the same in the two summaries, in that order, for two requests
    known to differ (their fingerprints do): if no part of the summaries tells them apart (a
    digest collision), the whole body differs, `""`."""
    where_a, a = _unpack(first)
    where_b, b = _unpack(second)
    method_a, _, place_a = where_a.partition("\n")
    method_b, _, place_b = where_b.partition("\n")
    out: list[str] = []
    if method_a != method_b:
        out.append("method")
    if place_a != place_b:
        out.append("path")
    out.extend(sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name)))
    return out or [""]
