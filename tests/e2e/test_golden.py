"""The golden master: a long mixed request stream answers exactly as recorded."""

from __future__ import annotations

from tests.e2e.golden.stream import first_difference


def test_the_recorded_stream_replays_byte_for_byte() -> None:
    assert first_difference() is None
