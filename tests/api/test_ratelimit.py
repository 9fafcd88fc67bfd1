"""Rate limits through HTTP: headers on every response, the window on the mock clock, plans."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.cli import run as run_command
from mockserver.cli.main import main
from mockserver.core.clock import parse_ts
from mockserver.core.config import Settings
from mockserver.core.shipped import default_seed_path
from mockserver.seeds.loader import load_seed
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope, clock_advance
from tests.support.exports import completed
from tests.support.keys import EU, FULL, LIVE, READONLY, REVOKED, auth
from tests.support.oauth import TOKEN, bearer, token_for

T0 = 1_768_467_600  # the fixtures' frozen start, 2026-01-15T09:00:00Z
RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")


def figures(response: httpx.Response) -> tuple[int, int, int]:
    """(limit, remaining, reset) of a response, each header present and an integer."""
    limit, remaining, reset = (int(response.headers[name]) for name in RATE_HEADERS)
    return limit, remaining, reset


def now(client: httpx.Client) -> int:
    return int(parse_ts(client.get("/_mock/clock").json()["now"]))


def exhaust(client: httpx.Client, count: int, key: str = FULL) -> list[httpx.Response]:
    return [client.get("/v1/whoami", headers=auth(key)) for _ in range(count)]


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_every_kind_of_response_carries_the_headers(both: httpx.Client) -> None:
    keyed = {
        "200": both.get("/v1/whoami"),
        "201": both.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}),
        "202": both.post("/v1/audit_logs/export", json={"period": "2026-01-01/2026-01-31"}),
        "400": both.post("/v1/documents", content=b"{nope"),
        "404 route": both.get("/v1/nope"),
        "404 outside /v1": both.get("/nope"),
        "404 resource": both.get("/v1/documents/doc_nope"),
        "409": both.delete("/v1/documents/doc_mock_signed"),
        "413": both.post("/v1/documents", content=b"x" * (1024 * 1024 + 1)),
        "422": both.post("/v1/documents", json={"title": "t"}),
    }
    other_key = both.post("/v1/vaults", json={}, headers=auth(READONLY))
    assert other_key.status_code == 403
    assert figures(other_key) == (120, 199, T0 + 60)  # its own window
    anonymous = {
        "401": both.get("/v1/whoami", headers=auth("sk_test_nope")),
        "401 revoked": both.get("/v1/whoami", headers=auth(REVOKED)),
        "401 no header": both.get("/v1/whoami", headers={"Authorization": ""}),
        "oauth 302": both.get("/v1/oauth/authorize", params={"client_id": "mock_client"}),
        "oauth 400": both.post(TOKEN, data={"grant_type": "password"}),
        "download 403": both.get("/v1/audit_logs/export/exp_nope/download?expires=1"),
    }
    for what, response in keyed.items():
        assert figures(response)[0::2] == (120, T0 + 60), what
    for what, response in anonymous.items():
        assert figures(response)[0::2] == (120, T0 + 60), what
    assert [figures(r)[1] for r in keyed.values()] == list(range(199, 199 - len(keyed), -1))
    assert [figures(r)[1] for r in anonymous.values()] == list(range(199, 199 - len(anonymous), -1))
    assert both.get("/_mock/clock").headers.keys() & set(RATE_HEADERS) == set()


def test_downloads_and_oauth_count_per_address_even_with_a_key(api: httpx.Client) -> None:
    url = completed(api)["download_url"]  # two requests with the key, the clock 2 s on
    downloaded = api.get(path_of(url))
    assert downloaded.status_code == 200
    assert figures(downloaded) == (120, 199, T0 + 62)
    assert figures(api.post(TOKEN, data={"grant_type": "password"}))[1] == 198
    assert figures(api.get("/v1/whoami")) == (120, 197, T0 + 60)


def test_a_429_carries_the_headers_and_retry_after(both: httpx.Client) -> None:
    admitted = exhaust(both, 200)
    assert [r.status_code for r in admitted] == [200] * 200
    assert [figures(r)[1] for r in admitted] == list(range(199, -1, -1))
    refused = both.get("/v1/whoami")
    error = assert_envelope(refused, 429, "rate_limit_error")
    assert "200 requests" in error["message"]
    assert figures(refused) == (120, 0, T0 + 60)
    assert int(refused.headers["retry-after"]) == 60
    assert refused.headers["x-request-id"] == error["request_id"]


def test_retry_after_and_reset_follow_the_clock(both: httpx.Client) -> None:
    exhaust(both, 100)
    clock_advance(both, 25)
    exhaust(both, 100)
    clock_advance(both, 10)
    refused = both.get("/v1/documents")
    assert refused.status_code == 429
    # the first 100 leave the window at T0 + 60, 25 s from now
    assert int(refused.headers["retry-after"]) == 25
    assert figures(refused)[2] == T0 + 60 == now(both) + 25
    clock_advance(both, 24)
    again = both.get("/v1/documents")
    assert (again.status_code, again.headers["retry-after"]) == (429, "1")
    clock_advance(both, 1)
    readmitted = both.get("/v1/documents")
    assert readmitted.status_code == 200
    # 100 left; 100 from T0 + 25 plus this one remain, and the oldest leaves at T0 + 85
    assert figures(readmitted) == (120, 99, T0 + 85)


def test_refused_requests_are_not_counted(api: httpx.Client) -> None:
    exhaust(api, 200)
    assert {r.status_code for r in exhaust(api, 50)} == {429}
    clock_advance(api, 60)
    assert [r.status_code for r in exhaust(api, 200)] == [200] * 200


def test_keys_and_addresses_have_their_own_windows(api: httpx.Client) -> None:
    exhaust(api, 200)
    assert api.get("/v1/whoami").status_code == 429
    assert figures(api.get("/v1/whoami", headers=auth(READONLY)))[1] == 199
    assert figures(api.get("/v1/whoami", headers=auth(EU)))[1] == 199
    # without a valid credential the client address is limited, with the sandbox plan
    anonymous = api.get("/v1/whoami", headers=auth("sk_test_unknown"))
    assert anonymous.status_code == 401
    assert figures(anonymous) == (120, 199, T0 + 60)


def test_failed_credentials_fill_the_address_window(api: httpx.Client) -> None:
    statuses = [api.get("/v1/whoami", headers=auth(REVOKED)).status_code for _ in range(201)]
    assert statuses == [401] * 200 + [429]
    assert api.post(TOKEN, data={"grant_type": "password"}).status_code == 429  # same address
    assert api.get("/v1/whoami").status_code == 200  # a valid key has its own window


def test_oauth_tokens_have_the_sandbox_plan(api: httpx.Client) -> None:
    token = token_for(api)
    response = api.get("/v1/whoami", headers=bearer(token))
    assert figures(response) == (120, 199, T0 + 60)
    assert response.json()["rate_limit"] == 120


def test_live_plan_admits_1000(api: httpx.Client) -> None:
    first = api.get("/v1/whoami", headers=auth(LIVE))
    assert first.json()["rate_limit"] == 600
    assert figures(first) == (600, 999, T0 + 60)
    statuses = [api.get("/v1/vaults", headers=auth(LIVE)).status_code for _ in range(1000)]
    assert statuses.count(200) == 999
    assert statuses[-1] == 429


def test_reset_empties_the_windows(api: httpx.Client) -> None:
    exhaust(api, 200)
    assert api.get("/v1/whoami").status_code == 429
    api.post("/_mock/reset")
    assert figures(api.get("/v1/whoami")) == (120, 199, T0 + 60)


def test_the_control_plane_is_not_limited(api: httpx.Client) -> None:
    exhaust(api, 200)
    for _ in range(10):
        response = api.get("/_mock/clock")
        assert response.status_code == 200
        assert not any(name in response.headers for name in RATE_HEADERS)


def test_regional_hosts_share_the_keys_window(api: httpx.Client) -> None:
    api.get("/us/v1/whoami")
    api.get("/eu/v1/vaults")
    api.get("/v1/whoami", headers={"Host": "eu.localhost"})
    assert figures(api.get("/v1/whoami"))[1] == 196


@pytest.fixture
def small_plan() -> Iterator[httpx.Client]:
    """A server whose seed gives `sk_test_small` a plan of 5 per minute, burst 7."""
    seed = load_seed(default_seed_path())
    small = dataclasses.replace(seed.keys[FULL], key="sk_test_small", rate_limit=5, burst=7)
    seed.keys = {**seed.keys, small.key: small}
    app = create_app(Settings(clock_mode="frozen"), seed=seed)
    with inprocess_client(app, headers=auth(small.key)) as client:
        yield client


def test_a_seeded_plan_overrides_the_default(small_plan: httpx.Client) -> None:
    responses = exhaust(small_plan, 8, key="sk_test_small")
    assert [r.status_code for r in responses] == [200] * 7 + [429]
    assert responses[0].json()["rate_limit"] == 5
    assert [figures(r)[:2] for r in responses] == [(5, n) for n in range(6, -1, -1)] + [(5, 0)]


@pytest.fixture
def unlimited() -> Iterator[httpx.Client]:
    app = create_app(Settings(clock_mode="frozen", rate_limit=False))
    with inprocess_client(app, headers=auth()) as client:
        yield client


def test_no_rate_limit_sends_headers_and_refuses_nothing(unlimited: httpx.Client) -> None:
    responses = exhaust(unlimited, 250)
    assert {r.status_code for r in responses} == {200}
    assert [figures(r)[1] for r in responses[195:205]] == [4, 3, 2, 1, 0, 0, 0, 0, 0, 0]
    assert {figures(r)[2] for r in responses} == {T0 + 60}
    assert "retry-after" not in responses[-1].headers
    clock_advance(unlimited, 60)
    assert figures(unlimited.get("/v1/whoami")) == (120, 199, T0 + 120)


@pytest.mark.parametrize(("flags", "last"), [([], 429), (["--no-rate-limit"], 200)])
def test_the_run_command_maps_no_rate_limit(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], last: int
) -> None:
    served: list[Starlette] = []
    monkeypatch.setattr(run_command, "serve", lambda app, *_, **__: served.append(app))
    assert main(["run", "--port", "0", "--clock", "frozen", *flags]) == 0
    with inprocess_client(served[0], headers=auth()) as client:
        responses = exhaust(client, 201)
    assert [r.status_code for r in responses[:200]] == [200] * 200
    assert responses[200].status_code == last
    assert figures(responses[200])[1] == 0
