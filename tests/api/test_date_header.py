"""`Date` comes from the mock clock, on every response, in-process and over a socket: the same
requests on the same clock give the same bytes, headers included (DESIGN.md section 11)."""

from __future__ import annotations

import httpx
import pytest

from mockserver.core.clock import http_date, parse_ts

START = "Thu, 15 Jan 2026 09:00:00 GMT"  # the frozen clock's default start
BODY = {"title": "Dated", "vault_id": "vault_mock_us"}


def test_every_response_carries_one_date_of_the_mock_clock(both: httpx.Client) -> None:
    answers = [
        both.get("/v1/documents", params={"limit": 1}),
        both.get("/v1/documents/doc_nope"),  # an error envelope
        both.get("/v1/documents", headers={"Authorization": "Bearer sk_test_nope"}),  # 401
        both.get("/_mock/clock"),  # the control plane
        both.get("/nowhere"),  # outside the API
    ]
    assert [a.status_code for a in answers] == [200, 404, 401, 200, 404]
    for answer in answers:
        assert answer.headers.get_list("date") == [START]


def test_the_date_moves_with_the_clock(both: httpx.Client) -> None:
    moved = both.post("/_mock/clock/advance", json={"seconds": 90061})
    assert moved.status_code == 200
    assert moved.headers["date"] == START  # dated when the request came in
    assert both.get("/v1/whoami").headers["date"] == "Fri, 16 Jan 2026 10:01:01 GMT"


def test_a_replay_is_dated_when_it_is_sent(both: httpx.Client) -> None:
    key = {"Idempotency-Key": "dated-replay"}
    first = both.post("/v1/documents", json=BODY, headers=key)
    both.post("/_mock/clock/advance", json={"seconds": 60})
    again = both.post("/v1/documents", json=BODY, headers=key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert first.headers["date"] == START
    assert again.headers.get_list("date") == ["Thu, 15 Jan 2026 09:01:00 GMT"]


def test_the_same_requests_give_the_same_bytes_over_a_socket(live: httpx.Client) -> None:
    def session() -> list[tuple[int, list[tuple[bytes, bytes]], bytes]]:
        assert live.post("/_mock/reset").status_code == 200
        answers = [
            live.get("/v1/documents", params={"limit": 2}),
            live.post("/v1/documents", json=BODY, headers={"Idempotency-Key": "same-bytes"}),
            live.get("/v1/documents/doc_nope"),
        ]
        return [(a.status_code, list(a.headers.raw), a.content) for a in answers]

    first = session()
    assert any(name.lower() == b"date" for name, _ in first[0][1])
    assert session() == first


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-01-15T09:00:00Z", b"Thu, 15 Jan 2026 09:00:00 GMT"),
        ("2024-02-29T23:59:59Z", b"Thu, 29 Feb 2024 23:59:59 GMT"),
        ("1970-01-01T00:00:00Z", b"Thu, 01 Jan 1970 00:00:00 GMT"),
        ("0001-01-01T00:00:00Z", b"Mon, 01 Jan 0001 00:00:00 GMT"),
        ("9999-12-31T23:59:59Z", b"Fri, 31 Dec 9999 23:59:59 GMT"),
    ],
)
def test_dates_are_imf_fixdate(stamp: str, expected: bytes) -> None:
    assert http_date(parse_ts(stamp) + 0.75) == expected  # whole seconds


def test_dates_outside_years_1_to_9999_are_clamped() -> None:
    assert http_date(-1e15) == b"Mon, 01 Jan 0001 00:00:00 GMT"
    assert http_date(1e15) == b"Fri, 31 Dec 9999 23:59:59 GMT"
