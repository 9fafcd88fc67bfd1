"""How an audit event is stored: its served bytes are exactly canonical JSON, hash included,
and take no more memory than their length (a long chain keeps every one of them)."""

from __future__ import annotations

import hashlib
import json
import tracemalloc

import orjson
import rfc8785

from mockserver.audit.chain import AuditChain, first_broken_link

DATA = {"title": "Mutual NDA", "metadata": {"kind": "nda", "amount": 12000}, "note": "x" * 600}


def append(chain: AuditChain, n: int) -> None:
    for i in range(n):
        chain.append(
            event_id=f"evt_{i:024d}",
            type="document.created",
            actor="a@mock.example",
            at=1_768_467_600 + i,
            resource_id="doc_1",
            related=("vault_1",),
            data=DATA,
        )


def test_stored_bytes_are_the_canonical_event_with_its_hash() -> None:
    chain = AuditChain()
    append(chain, 3)
    served = [orjson.loads(e.raw) for e in chain.events]
    assert first_broken_link(served) is None
    for event, body in zip(chain.events, served, strict=True):
        assert event.raw == rfc8785.dumps(body)
        unhashed = {k: v for k, v in body.items() if k != "hash"}
        digest = hashlib.sha256(
            json.dumps(unhashed, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
        assert body["hash"] == event.hash == digest
        assert list(body) == sorted(body)


def test_awkward_strings_are_canonical_too() -> None:
    """Every string of an event is encoded as RFC 8785 says, checked against an independent
    implementation: quotes, escapes, control characters, astral and line-separator characters."""
    odd = 'q"uote\\back\nline\ttab \u00e9\u4e2d\U0001f600 \u2028 \x01\x1f </script>'
    chain = AuditChain()
    event = chain.append(
        event_id="evt_" + odd,
        type="type." + odd,
        actor=odd,
        at=0,
        resource_id="doc_" + odd,
        related=(),
        data={odd: [odd, 1, True, None], "z": {"b": 1, "a": odd}},
    )
    body = orjson.loads(event.raw)
    assert (body["actor"], body["seq"], body["at"]) == (odd, 1, "1970-01-01T00:00:00Z")
    assert event.raw == rfc8785.dumps(body)
    unhashed = {k: v for k, v in body.items() if k != "hash"}
    assert event.hash == hashlib.sha256(rfc8785.dumps(unhashed)).hexdigest()


def test_stored_bytes_take_about_their_length() -> None:
    chain = AuditChain()
    append(chain, 10)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        append(chain, 2000)
        per_event = (tracemalloc.get_traced_memory()[0] - before) / 2000
    finally:
        tracemalloc.stop()
    size = len(chain.events[-1].raw)
    # bytes, the event object, its id, hash and related set; never orjson's spare buffer
    assert per_event < size + 1024, (per_event, size)
