"""A request carrying two `Authorization` headers is refused before anything counts or runs
it: 401 `authentication_error`, whichever the values and their order, with the rate-limit
headers every API answer carries (the client address's window as it stands). The control
plane's `X-Mock-Admin-Token` is held to the same rule."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import FULL
from tests.support.oauth import CLIENT_ID, REDIRECT, SECRET, TOKEN, code_for

BOGUS = "sk_test_not_a_key_at_all"
MESSAGE = "The request carries more than one Authorization header."
NEW_DOC = {"title": "two keys", "vault_id": "vault_mock_us"}
PAIRS = {
    "valid then bogus": (FULL, BOGUS),
    "bogus then valid": (BOGUS, FULL),
    "the same key twice": (FULL, FULL),
}


def two(first: str, second: str) -> list[tuple[str, str]]:
    """Request headers with two `Authorization: Bearer` lines."""
    return [("Authorization", f"Bearer {first}"), ("Authorization", f"Bearer {second}")]


def remaining(response: httpx.Response) -> int:
    return int(response.headers["x-ratelimit-remaining"])


def newest_audit_event(client: httpx.Client) -> dict[str, Any]:
    page = client.get("/v1/audit_logs?limit=1", headers={"Authorization": f"Bearer {FULL}"})
    assert page.status_code == 200, page.text
    event: dict[str, Any] = page.json()["data"][0]
    return event


def last_entry(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/_mock/requests", params={"limit": 1})
    assert response.status_code == 200, response.text
    entry: dict[str, Any] = response.json()["data"][0]
    return entry


@pytest.fixture
def anon(api: httpx.Client) -> httpx.Client:
    """The in-process client without its default key: each test sends its own headers."""
    api.headers.pop("Authorization")
    return api


@pytest.mark.parametrize(("first", "second"), PAIRS.values(), ids=PAIRS.keys())
def test_a_create_with_two_authorization_headers_is_401_and_creates_nothing(
    anon: httpx.Client, first: str, second: str
) -> None:
    before = newest_audit_event(anon)
    refused = anon.post("/v1/documents", json=NEW_DOC, headers=two(first, second))
    error = assert_envelope(refused, 401, "authentication_error")
    assert error["message"].startswith(MESSAGE)
    assert FULL not in error["message"]
    assert newest_audit_event(anon) == before  # no document, no audit event


@pytest.mark.parametrize(("first", "second"), PAIRS.values(), ids=PAIRS.keys())
def test_two_authorization_headers_count_in_no_rate_window(
    anon: httpx.Client, first: str, second: str
) -> None:
    keyed = anon.get("/v1/whoami", headers={"Authorization": f"Bearer {FULL}"})
    unknown = anon.get("/v1/whoami", headers={"Authorization": f"Bearer {BOGUS}"})
    refused = anon.get("/v1/whoami", headers=two(first, second))
    assert refused.status_code == 401
    # it carries the client address's window as it stands: the unknown key's request counted
    # there, this one did not
    assert refused.headers["x-ratelimit-limit"] == "120"
    assert remaining(refused) == remaining(unknown)
    assert refused.headers["x-ratelimit-reset"] == unknown.headers["x-ratelimit-reset"]
    # the key's window and the client address's each count only their own next request
    again = anon.get("/v1/whoami", headers={"Authorization": f"Bearer {FULL}"})
    assert remaining(again) == remaining(keyed) - 1
    unknown_again = anon.get("/v1/whoami", headers={"Authorization": f"Bearer {BOGUS}"})
    assert remaining(unknown_again) == remaining(unknown) - 1


def test_with_nothing_counted_yet_the_window_is_whole(anon: httpx.Client) -> None:
    refused = anon.get("/v1/whoami", headers=two(FULL, BOGUS))
    assert refused.status_code == 401
    assert remaining(refused) == 200  # the sandbox plan's burst: nothing in the window
    counted = anon.get("/v1/whoami")  # no credential: the address's window counts this one
    assert counted.status_code == 401
    assert remaining(counted) == 199
    assert refused.headers["x-ratelimit-reset"] == counted.headers["x-ratelimit-reset"]


def test_the_journal_explains_the_refusal(anon: httpx.Client) -> None:
    refused = anon.post(
        "/v1/documents",
        json=NEW_DOC,
        headers=[*two(FULL, BOGUS), ("X-Mock-Explain", "1")],
    )
    error = assert_envelope(refused, 401, "authentication_error")
    assert refused.headers["x-mock-explain"] == f"authentication: {error['message']}"
    entry = last_entry(anon)
    assert entry["status"] == 401
    assert entry["explain"] == {
        "check": "authentication",
        "reason": "malformed",
        "message": error["message"],
    }


def test_one_authorization_header_is_still_served(anon: httpx.Client) -> None:
    created = anon.post("/v1/documents", json=NEW_DOC, headers={"Authorization": f"Bearer {FULL}"})
    assert created.status_code == 201, created.text


def test_the_token_endpoint_with_two_authorization_headers_is_401(anon: httpx.Client) -> None:
    credentials = "Basic " + base64.b64encode(f"{CLIENT_ID}:{SECRET}".encode()).decode()
    form = {"grant_type": "authorization_code", "code": code_for(anon), "redirect_uri": REDIRECT}
    headers = [("Authorization", credentials), ("Authorization", credentials)]
    refused = anon.post(TOKEN, data=form, headers=headers)
    assert_envelope(refused, 401, "authentication_error")
    # the code was not spent: one header exchanges it
    issued = anon.post(TOKEN, data=form, headers={"Authorization": credentials})
    assert issued.status_code == 200, issued.text


def test_an_account_sandbox_key_twice_is_refused_by_the_server(anon: httpx.Client) -> None:
    made = anon.post("/_mock/accounts", json={"name": "twice"})
    assert made.status_code == 201, made.text
    key = made.json()["keys"]["full"]
    refused = anon.get("/v1/whoami", headers=two(key, key))
    error = assert_envelope(refused, 401, "authentication_error")
    assert error["message"].startswith(MESSAGE)
    assert last_entry(anon)["explain"]["reason"] == "malformed"


@pytest.fixture
def guarded() -> Iterator[httpx.Client]:
    with inprocess_client(create_app(Settings(clock_mode="frozen", admin_token="s3cret"))) as c:
        yield c


@pytest.mark.parametrize(
    "tokens", [("s3cret", "nope"), ("nope", "s3cret"), ("s3cret", "s3cret")], ids=str
)
def test_two_admin_tokens_are_401(guarded: httpx.Client, tokens: tuple[str, str]) -> None:
    headers = [("X-Mock-Admin-Token", token) for token in tokens]
    refused = guarded.post("/_mock/clock/advance", json={"seconds": 60}, headers=headers)
    error = assert_envelope(refused, 401, "authentication_error")
    assert error["message"] == "The request carries more than one X-Mock-Admin-Token header."
    clock = guarded.get("/_mock/clock", headers={"X-Mock-Admin-Token": "s3cret"})
    assert clock.json()["now"] == "2026-01-15T09:00:00Z"  # the clock did not move
