"""Idempotency records without HTTP: claiming, keeping, expiry, fingerprints, key rules."""

from __future__ import annotations

import pytest

from mockserver.core.errors import ApiError, BadRequest
from mockserver.domain.auth import Principal
from mockserver.domain.idempotency import (
    EXPIRE_BATCH,
    RETENTION,
    IdempotencyStore,
    check_key,
    fingerprint_and_value,
    is_kept,
    scope_of,
)

T0 = 1_768_467_600.0
K = scope_of("acct", "sandbox", "key-1")


@pytest.mark.parametrize(
    ("status", "kept"),
    [
        (200, True),
        (201, True),
        (202, True),
        (404, True),
        (409, True),
        (400, False),
        (401, False),
        (403, False),
        (413, False),
        (422, False),
        (429, False),
        (500, False),
        (503, False),
    ],
)
def test_only_executed_results_are_kept(status: int, kept: bool) -> None:
    assert is_kept(status) is kept
    records = IdempotencyStore()
    record = records.begin(K)
    assert records.complete(K, record, status, "response", T0) is kept
    found = records.lookup(K, T0)
    assert (found is record) is kept
    assert found is None or (found.done and found.response == "response")


def test_a_claimed_key_is_in_flight_until_completed_or_abandoned() -> None:
    records = IdempotencyStore()
    record = records.begin(K)
    assert records.lookup(K, T0) is record
    assert not record.done
    records.abandon(K, record)
    assert records.lookup(K, T0) is None


def test_kept_results_expire_after_the_retention() -> None:
    records = IdempotencyStore()
    records.complete(K, records.begin(K), 201, "r", T0)
    assert records.lookup(K, T0 + RETENTION - 1) is not None
    assert records.lookup(K, T0 + RETENTION) is None
    assert len(records) == 0


def test_expiry_is_first_in_first_out_and_spares_a_reused_key() -> None:
    records = IdempotencyStore()
    other = scope_of("acct", "sandbox", "key-2")
    records.complete(K, records.begin(K), 201, "first", T0)
    records.complete(other, records.begin(other), 201, "second", T0 + 10)
    records.lookup(other, T0 + RETENTION)  # a lookup of any key drops the expired ones
    assert len(records) == 1
    again = records.begin(K)
    records.complete(K, again, 201, "third", T0 + RETENTION)
    records.lookup(K, T0 + RETENTION + 10)  # the second one expires; the new first stays
    assert records.lookup(K, T0 + RETENTION + 10) is again


def test_a_clock_set_back_never_serves_an_expired_result() -> None:
    records = IdempotencyStore()
    records.complete(K, records.begin(K), 201, "late", T0 + 1000)
    early = scope_of("a", "b", "c")
    records.complete(early, records.begin(early), 201, "early", T0)
    assert records.lookup(early, T0 + RETENTION) is None


def test_a_backlog_of_expired_records_is_dropped_a_batch_per_lookup() -> None:
    records = IdempotencyStore()
    keys = [scope_of("acct", "sandbox", f"k{n}") for n in range(3 * EXPIRE_BATCH)]
    for key in keys:
        records.complete(key, records.begin(key), 201, key, T0)
    later = T0 + RETENTION
    records.lookup(scope_of("acct", "sandbox", "other"), later)
    assert len(records) == 2 * EXPIRE_BATCH  # one batch dropped, the rest waits
    assert records.lookup(keys[-1], later) is None  # waiting, but never served
    assert len(records) == EXPIRE_BATCH - 1  # a second batch, and the looked-up key itself
    for _ in range(2):
        records.lookup(keys[0], later)
    assert len(records) == 0


def test_the_record_key_keeps_the_three_parts_apart() -> None:
    assert scope_of("acct", "sandbox", "a b") != scope_of("acct", "sandbox a", "b")
    assert len({scope_of("a", "b", "c"), scope_of("a", "b", "c ")}) == 2


def test_clear_orphans_requests_still_running() -> None:
    records = IdempotencyStore()
    record = records.begin(K)
    records.clear()
    assert records.complete(K, record, 201, "r", T0) is False
    assert records.lookup(K, T0) is None
    fresh = records.begin(K)
    records.abandon(K, record)  # the old request finishing does not release the new claim
    assert records.lookup(K, T0) is fresh


def test_fingerprint_ignores_json_formatting_but_not_content() -> None:
    one = fingerprint("POST", "us", "/v1/documents", b'{"a": 1, "b": [1, 2]}')
    assert one == fingerprint("POST", "us", "/v1/documents", b'{"b":[1,2],\n"a":1}')
    assert one != fingerprint("POST", "us", "/v1/documents", b'{"a": 1, "b": [2, 1]}')
    assert one != fingerprint("POST", "eu", "/v1/documents", b'{"a": 1, "b": [1, 2]}')
    assert one != fingerprint("POST", "us", "/v1/vaults", b'{"a": 1, "b": [1, 2]}')
    assert one != fingerprint("POST", "us", "/v1/documents", b'{"a": 1.0, "b": [1, 2]}')
    raw = fingerprint("POST", "us", "/v1/documents", b"{not json")
    assert raw == fingerprint("POST", "us", "/v1/documents", b"{not json")
    assert raw != fingerprint("POST", "us", "/v1/documents", b"{not  json")


@pytest.mark.parametrize("key", ["k", "x" * 255, "order 42 / retry", "~!@#$%^&*()"])
def test_valid_keys(key: str) -> None:
    assert check_key(key) == key


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("", "1 to 255"),
        ("x" * 256, "1 to 255"),
        ("caf\xe9", "printable ASCII"),
        ("tab\there", "printable ASCII"),
        ("nul\x00", "printable ASCII"),
    ],
)
def test_invalid_keys(key: str, fragment: str) -> None:
    with pytest.raises(BadRequest, match=fragment) as raised:
        check_key(key)
    assert raised.value.param == "Idempotency-Key"


def test_each_account_and_environment_keeps_at_most_capacity_results() -> None:
    records = IdempotencyStore(capacity=2)
    keys = [scope_of("acct", "sandbox", f"k{n}") for n in range(5)]
    other = scope_of("acct", "live", "k0")
    records.complete(other, records.begin(other), 201, "other", T0)
    for n, key in enumerate(keys):
        records.complete(key, records.begin(key), 201, key, T0 + n)
    assert [records.lookup(key, T0 + 10) is not None for key in keys] == [False] * 3 + [True] * 2
    assert records.lookup(other, T0 + 10) is not None
    assert len(records) == 3


def test_the_cap_holds_when_the_clock_goes_back_and_keys_are_reused() -> None:
    records = IdempotencyStore(capacity=3)
    for round_ in range(50):
        for n in range(4):
            key = scope_of("acct", "sandbox", f"k{n}")
            at = T0 + RETENTION * (round_ % 3) - n  # now forward, now back
            if records.lookup(key, at) is None:
                records.complete(key, records.begin(key), 201, "r", at)
            assert len(records) <= 3
    assert all(len(kept) <= 3 for kept in records._kept.values())


def test_a_keyed_post_holds_its_key_until_it_answers_or_lets_go() -> None:
    store = IdempotencyStore()
    caller = Principal("acct", "test", frozenset({"vaults:write"}), "user", "sk_x", 100, 200)
    hold = store.hold(caller, ["k1"], False, T0)
    assert hold is not None
    assert hold.record is not None
    with pytest.raises(ApiError) as in_flight:  # the same key while the first runs
        store.hold(caller, ["k1"], False, T0)
    assert in_flight.value.status == 409
    value, stored = store.settle(hold, caller, "POST", "us", "/v1/vaults", b'{"name": "x"}', clock)
    assert (value, stored) == ({"name": "x"}, None)
    headers = [(b"content-length", b"2"), (b"x-extra", b"dropped"), (b"x-request-id", b"req_1")]
    store.answered(hold, "vaults:write", 201, headers, b"{}", T0)
    again = store.hold(caller, ["k1"], False, T0)
    assert again is not None
    value, stored = store.settle(again, caller, "POST", "us", "/v1/vaults", b'{"name":"x"}', clock)
    # The same payload (as JSON) gets the stored response, with the mock's own headers only.
    assert stored == b"201\r\ncontent-length: 2\r\nx-request-id: req_1\r\n\r\n{}"
    other = store.hold(caller, ["k1"], False, T0)
    assert other is not None
    with pytest.raises(ApiError) as mismatch:
        store.settle(other, caller, "POST", "us", "/v1/vaults", b'{"name": "y"}', clock)
    assert mismatch.value.status == 409
    assert store.hold(caller, ["k1"], True, T0) is None  # an oversized body: run without it


def clock() -> float:
    return T0


def fingerprint(method: str, region: str, path: str, body: bytes) -> bytes:
    return fingerprint_and_value(method, region, path, body)[0]
