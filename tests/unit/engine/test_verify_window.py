"""The verify walk over a journal ring that has wrapped: `since_seq` counts from seq, not
from the ring's first slot."""

from __future__ import annotations

from mockserver.engine.journal import Journal
from mockserver.engine.verify import parse_matcher, verify


def ring(size: int, requests: int) -> Journal:
    journal = Journal(size)
    for i in range(requests):
        entry = journal.open(0.0, "GET", f"/v1/documents/doc_{i}", "", ())
        entry.status = 200
    return journal


def test_since_seq_on_a_wrapped_ring() -> None:
    journal = ring(5, 8)  # keeps seqs 4..8
    assert verify(parse_matcher({"method": "GET"}), journal.entries())["matched"] == 5
    for since, expected in [(0, 5), (2, 5), (3, 5), (4, 4), (7, 1), (8, 0), (99, 0)]:
        answer = verify(parse_matcher({"since_seq": since, "count": expected}), journal.entries())
        assert answer["ok"], (since, answer)


def test_near_misses_respect_since_seq() -> None:
    journal = ring(10, 6)
    answer = verify(parse_matcher({"method": "POST", "since_seq": 4}), journal.entries())
    assert [miss["seq"] for miss in answer["near_misses"]] == [6, 5]
