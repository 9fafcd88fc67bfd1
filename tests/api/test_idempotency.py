"""Idempotency keys through HTTP: byte-identical replays, conflicts, what is kept, retention."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.domain import workflows
from tests.support.api import assert_envelope, clock_advance
from tests.support.asgi import Pause, request
from tests.support.keys import EU, FULL, LIVE, READONLY, auth
from tests.support.workflows import new_document

DOC = {"title": "Mutual NDA", "vault_id": "vault_mock_us"}
FRESH = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")
DAY = 24 * 3600


def post(
    client: httpx.Client, key: str, body: Any = DOC, path: str = "/v1/documents", **headers: str
) -> httpx.Response:
    return client.post(path, json=body, headers={"Idempotency-Key": key, **headers})


def without_fresh(response: httpx.Response) -> list[tuple[str, str]]:
    """Every header but the rate-limit ones (fresh on each response) and the transport's."""
    skip = {*FRESH, "idempotent-replayed", "date", "server"}
    return [(k, v) for k, v in response.headers.multi_items() if k not in skip]


def titles(client: httpx.Client, title: str) -> list[str]:
    listed = client.get("/v1/documents?limit=100&vault_id=vault_mock_us").json()["data"]
    return [d["id"] for d in listed if d["title"] == title]


def test_a_retry_is_the_original_response_byte_for_byte(both: httpx.Client) -> None:
    first = post(both, "order-1")
    assert first.status_code == 201
    assert "idempotent-replayed" not in first.headers
    retry = post(both, "order-1")
    assert retry.status_code == 201
    assert retry.content == first.content
    assert without_fresh(retry) == without_fresh(first)
    assert retry.headers["x-request-id"] == first.headers["x-request-id"]
    assert retry.headers["idempotent-replayed"] == "true"
    assert (
        int(retry.headers["x-ratelimit-remaining"])
        == int(first.headers["x-ratelimit-remaining"]) - 1
    )
    assert titles(both, DOC["title"]) == [first.json()["id"]]


def test_json_formatting_and_key_order_do_not_matter(api: httpx.Client) -> None:
    first = post(api, "k")
    retry = api.post(
        "/v1/documents",
        content=b'{ "vault_id" : "vault_mock_us",\n  "title":"Mutual NDA" }',
        headers={"Idempotency-Key": "k", "Content-Type": "application/json"},
    )
    assert retry.headers["idempotent-replayed"] == "true"
    assert retry.content == first.content


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/documents", {**DOC, "title": "Other"}),
        ("/v1/documents", {**DOC, "metadata": {}}),
        ("/v1/vaults", DOC),
        ("/eu/v1/documents", DOC),
    ],
)
def test_the_key_with_another_request_is_409(api: httpx.Client, path: str, body: Any) -> None:
    post(api, "k")
    error = assert_envelope(post(api, "k", body, path), 409, "conflict")
    assert error["param"] == "Idempotency-Key"
    assert "different request" in error["message"]
    assert len(titles(api, DOC["title"])) == 1


def test_the_default_host_and_the_default_regions_prefix_are_one_request(
    api: httpx.Client,
) -> None:
    first = post(api, "k")
    assert post(api, "k", path="/us/v1/documents").content == first.content
    assert post(api, "k", Host="us.localhost").content == first.content


def test_keys_are_scoped_per_account_and_environment(api: httpx.Client) -> None:
    us = post(api, "shared")
    eu = post(api, "shared", {"title": "t", "vault_id": "vault_mock_eu"}, **auth(EU))
    assert eu.status_code == 404  # acct_mock_eu has no vault_mock_eu: a separate account
    live_vault = api.post("/v1/vaults", json={"name": "v", "region": "us"}, headers=auth(LIVE))
    live = post(api, "shared", {**DOC, "vault_id": live_vault.json()["id"]}, **auth(LIVE))
    assert live.status_code == 201
    assert "idempotent-replayed" not in live.headers
    assert live.json()["id"] != us.json()["id"]


def test_another_key_of_the_account_gets_the_replay(api: httpx.Client) -> None:
    first = post(api, "k", {"name": "Board", "region": "us"}, "/v1/vaults")
    other = api.post(
        "/v1/vaults",
        json={"name": "Board", "region": "us"},
        headers={"Idempotency-Key": "k", **auth("sk_test_mock_full")},
    )
    assert other.content == first.content


def test_a_replay_still_needs_the_scope(api: httpx.Client) -> None:
    post(api, "k")
    assert_envelope(post(api, "k", **auth(READONLY)), 403, "permission_error")


@pytest.mark.parametrize(
    ("first_body", "headers", "status"),
    [
        ({"title": "t"}, {}, 422),
        ({"title": "x" * 501, "vault_id": "vault_mock_us"}, {}, 422),
        (DOC, auth(READONLY), 403),
        (DOC, {"Content-Type": "text/plain"}, 400),
    ],
)
def test_refused_requests_are_not_kept(
    api: httpx.Client, first_body: Any, headers: dict[str, str], status: int
) -> None:
    assert post(api, "k", first_body, **headers).status_code == status
    retry = post(api, "k")
    assert retry.status_code == 201
    assert "idempotent-replayed" not in retry.headers


def test_a_body_over_the_limit_is_not_kept(api: httpx.Client) -> None:
    big = {**DOC, "metadata": {"k": "x" * (1024 * 1024)}}
    assert_envelope(post(api, "k", big), 413, "bad_request")
    assert post(api, "k").status_code == 201


def test_a_malformed_body_is_not_kept(api: httpx.Client) -> None:
    bad = api.post("/v1/documents", content=b"{bad", headers={"Idempotency-Key": "k"})
    assert_envelope(bad, 400, "bad_request")
    assert post(api, "k").status_code == 201


def test_a_500_is_not_kept(api: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    real = workflows.create

    def fail_once(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(workflows, "create", real)
        raise RuntimeError("boom")

    # The workflow operations call `workflows.create` through its module: the patch holds.
    monkeypatch.setattr(workflows, "create", fail_once)
    body = {"document_id": "doc_mock_draft", "steps": [{"assignee": "ann@example.com"}]}
    assert_envelope(post(api, "k", body, "/v1/workflows"), 500, "api_error")
    retry = post(api, "k", body, "/v1/workflows")
    assert retry.status_code == 201
    assert "idempotent-replayed" not in retry.headers


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/documents", {"title": "t", "vault_id": "vault_nope"}, 404),
        (
            "/v1/workflows",
            {"document_id": "doc_mock_signed", "steps": [{"assignee": "a@b.co"}]},
            409,
        ),
        ("/v1/workflows/wf_nope/advance", {"decision": "approve"}, 404),
    ],
)
def test_executed_failures_are_kept(api: httpx.Client, path: str, body: Any, status: int) -> None:
    first = post(api, "k", body, path)
    assert first.status_code == status
    retry = post(api, "k", body, path)
    assert retry.headers["idempotent-replayed"] == "true"
    assert retry.content == first.content


def test_a_replayed_advance_does_not_advance_twice(api: httpx.Client) -> None:
    doc_id = new_document(api)
    steps = [{"assignee": "a@b.co"}, {"assignee": "c@d.co"}]
    wf = api.post("/v1/workflows", json={"document_id": doc_id, "steps": steps}).json()
    path = f"/v1/workflows/{wf['id']}/advance"
    first = post(api, "adv-1", {"decision": "approve"}, path)
    retry = post(api, "adv-1", {"decision": "approve"}, path)
    assert retry.content == first.content
    assert api.get(f"/v1/workflows/{wf['id']}").json()["current_step"] == 2


def test_results_are_kept_for_24_hours_of_mock_time(both: httpx.Client) -> None:
    first = post(both, "k")
    clock_advance(both, DAY - 1)
    assert post(both, "k").content == first.content
    clock_advance(both, 1)
    again = post(both, "k")
    assert again.status_code == 201
    assert "idempotent-replayed" not in again.headers
    assert again.json()["id"] != first.json()["id"]
    assert post(both, "k").content == again.content  # and the new result is kept in turn


def test_reset_forgets_the_keys(api: httpx.Client) -> None:
    post(api, "k")
    api.post("/_mock/reset")
    assert "idempotent-replayed" not in post(api, "k").headers


@pytest.mark.parametrize(
    "headers",
    [
        [("Idempotency-Key", "")],
        [("Idempotency-Key", "x" * 256)],
        [("Idempotency-Key", "tab\tinside")],
        [("Idempotency-Key", "a"), ("Idempotency-Key", "b")],
    ],
)
def test_bad_keys_are_400(both: httpx.Client, headers: list[tuple[str, str]]) -> None:
    response = both.post("/v1/documents", json=DOC, headers=httpx.Headers(headers))
    error = assert_envelope(response, 400, "bad_request")
    assert error["param"] == "Idempotency-Key"
    assert "x-ratelimit-remaining" in response.headers
    assert titles(both, DOC["title"]) == []


def test_a_non_ascii_key_is_400(both: httpx.Client) -> None:
    response = both.post(
        "/v1/documents",
        json=DOC,
        headers=[(b"Idempotency-Key", "clé".encode())],
    )
    assert assert_envelope(response, 400, "bad_request")["param"] == "Idempotency-Key"


def test_the_longest_key_works(api: httpx.Client) -> None:
    first = post(api, "k" * 255)
    assert post(api, "k" * 255).content == first.content


def test_keys_are_ignored_where_they_do_not_apply(api: httpx.Client) -> None:
    for _ in range(2):
        listed = api.get("/v1/documents", headers={"Idempotency-Key": ""})
        assert listed.status_code == 200
        assert "idempotent-replayed" not in listed.headers
    deleted = api.delete("/v1/documents/doc_mock_draft", headers={"Idempotency-Key": "d"})
    assert deleted.status_code == 200
    again = api.delete("/v1/documents/doc_mock_draft", headers={"Idempotency-Key": "d"})
    assert_envelope(again, 404, "not_found")
    token = api.post(
        "/v1/oauth/token", data={"grant_type": "password"}, headers={"Idempotency-Key": ""}
    )
    assert token.status_code == 401  # the client authentication fails, not the empty key
    assert token.json()["error"]["code"] == "invalid_client"


def test_unauthenticated_requests_get_401_whatever_the_key(api: httpx.Client) -> None:
    post(api, "k")
    response = post(api, "k", **auth("sk_test_nope"))
    assert_envelope(response, 401, "authentication_error")


def test_the_same_key_while_the_first_request_runs_is_409(fresh_app: Starlette) -> None:
    """The first request's body arrives in two parts; between them, a retry is refused as in
    flight, another key runs, and once the first completes a retry gets its response."""
    key = [(b"authorization", f"Bearer {FULL}".encode()), (b"content-type", b"application/json")]
    body = b'{"title": "Slow upload", "vault_id": "vault_mock_us"}'

    def with_key(name: str) -> list[tuple[bytes, bytes]]:
        return [*key, (b"idempotency-key", name.encode())]

    async def scenario() -> None:
        pause = Pause()
        first = asyncio.create_task(
            request(
                fresh_app,
                "POST",
                "/v1/documents",
                headers=with_key("slow"),
                chunks=[body[:20], body[20:]],
                pause=pause,
            )
        )
        await pause.reached.wait()
        during = await request(
            fresh_app, "POST", "/v1/documents", headers=with_key("slow"), chunks=[body]
        )
        assert during.status == 409
        assert "still being processed" in during.json()["error"]["message"]
        [refused] = fresh_app.state.journal.find(status=409, limit=1)
        assert refused.explained() == {
            "check": "idempotency",
            "message": during.json()["error"]["message"],
            "key": "slow",
            "in_flight": True,
        }
        other = await request(
            fresh_app, "POST", "/v1/documents", headers=with_key("other"), chunks=[body]
        )
        assert other.status == 201
        pause.release.set()
        done = await first
        assert done.status == 201
        after = await request(
            fresh_app, "POST", "/v1/documents", headers=with_key("slow"), chunks=[body]
        )
        assert after.status == 201
        assert after.body == done.body
        assert after.header("idempotent-replayed") == "true"
        assert after.header("x-request-id") == done.header("x-request-id")

    asyncio.run(asyncio.wait_for(scenario(), timeout=10))


def test_a_client_that_goes_away_mid_body_releases_the_key(fresh_app: Starlette) -> None:
    headers = [
        (b"authorization", f"Bearer {FULL}".encode()),
        (b"idempotency-key", b"gone"),
    ]

    async def scenario() -> None:
        messages = iter(
            [
                {"type": "http.request", "body": b'{"title": ', "more_body": True},
                {"type": "http.disconnect"},
            ]
        )
        sent: list[Any] = []

        async def receive() -> Any:
            return next(messages)

        async def send(message: Any) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/v1/documents",
            "raw_path": b"/v1/documents",
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": ("127.0.0.1", 1),
            "server": ("mock", 80),
            "scheme": "http",
            "http_version": "1.1",
        }
        await fresh_app(scope, receive, send)
        assert sent == []  # nobody to answer
        retry = await request(
            fresh_app,
            "POST",
            "/v1/documents",
            headers=[*headers, (b"content-type", b"application/json")],
            chunks=[b'{"title": "t", "vault_id": "vault_mock_us"}'],
        )
        assert retry.status == 201

    asyncio.run(asyncio.wait_for(scenario(), timeout=10))
