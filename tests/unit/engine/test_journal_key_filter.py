"""The journal's key filter: the whole key, the masked form entries show, or (for the
inspector) its first characters; never a key that merely looks alike."""

from __future__ import annotations

from mockserver.domain.auth import mask
from mockserver.engine.journal import Journal, key_matches

FULL = "sk_test_mock_full"
READONLY = "sk_test_mock_readonly"


def test_whole_masked_and_prefix() -> None:
    assert key_matches(FULL, FULL)
    assert key_matches(FULL, mask(FULL))
    assert not key_matches(READONLY, mask(FULL))
    assert not key_matches(FULL, "sk_test_mock_f")  # a start only when asked for
    assert key_matches(FULL, "sk_test_mock_f", prefix=True)
    assert not key_matches(None, FULL, prefix=True)


def test_find_by_the_masked_form() -> None:
    journal = Journal(10)
    for key in (FULL, READONLY, FULL):
        journal.open(0.0, "GET", "/v1/vaults", "", [(b"authorization", f"Bearer {key}".encode())])
    assert [e.seq for e in journal.find(key=mask(FULL))] == [3, 1]
    assert [e.seq for e in journal.find(key="sk_test_mock_r", key_prefix=True)] == [2]
    assert journal.find(key="sk_test_mock_r") == []
