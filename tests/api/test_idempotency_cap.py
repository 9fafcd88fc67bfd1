"""The idempotency cap through HTTP: each (account, environment) keeps its newest results, the
oldest is dropped first (a retry with its key then runs again), and nothing else changes."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import FULL, LIVE, auth

CAP = 3
DOC = {"title": "Capped", "vault_id": "vault_mock_us"}


@pytest.fixture(scope="module")
def capped_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", idempotency_records=CAP))


@pytest.fixture
def capped(capped_app: Starlette) -> Iterator[httpx.Client]:
    capped_app.state.store.reset()
    with inprocess_client(capped_app, headers=auth(FULL)) as client:
        yield client


def post(client: httpx.Client, key: str, body: object = DOC, api_key: str = FULL) -> httpx.Response:
    response = client.post(
        "/v1/documents", json=body, headers={"Idempotency-Key": key, **auth(api_key)}
    )
    assert response.status_code == 201, response.text
    return response


def test_the_oldest_result_is_dropped_first(capped: httpx.Client) -> None:
    first = [post(capped, f"k{n}").json()["id"] for n in range(CAP + 2)]
    assert len(set(first)) == CAP + 2
    newest = [post(capped, f"k{n}") for n in range(2, CAP + 2)]
    assert [r.json()["id"] for r in newest] == first[2:]
    assert all(r.headers["idempotent-replayed"] == "true" for r in newest)
    again = post(capped, "k0")  # dropped: runs anew, a second document
    assert "idempotent-replayed" not in again.headers
    assert again.json()["id"] not in first
    assert post(capped, "k0").json()["id"] == again.json()["id"]  # and is kept again
    assert capped.get(f"/v1/documents/{first[0]}").status_code == 200  # the data stays


def test_each_account_and_environment_has_its_own_cap(capped: httpx.Client) -> None:
    vault = capped.post(
        "/v1/vaults", json={"name": "Live", "region": "us"}, headers=auth(LIVE)
    ).json()["id"]
    live_doc = {"title": "Capped", "vault_id": vault}
    live = post(capped, "shared", live_doc, api_key=LIVE).json()["id"]
    for n in range(CAP + 5):
        post(capped, f"sandbox-{n}")
    replay = post(capped, "shared", live_doc, api_key=LIVE)
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json()["id"] == live


def test_a_kept_409_is_capped_like_any_result(capped: httpx.Client) -> None:
    body = {"document_id": "doc_mock_signed", "steps": [{"assignee": "a@mock-us.example"}]}

    def start(key: str) -> httpx.Response:
        response = capped.post("/v1/workflows", json=body, headers={"Idempotency-Key": key})
        assert response.status_code == 409, response.text
        return response

    first = start("w0")
    for n in range(1, CAP + 1):
        start(f"w{n}")
    again = start("w0")  # dropped: runs again, a fresh answer (a new request id)
    assert "idempotent-replayed" not in again.headers
    assert again.headers["x-request-id"] != first.headers["x-request-id"]
    assert start(f"w{CAP}").headers["idempotent-replayed"] == "true"


def test_a_reset_empties_the_records_and_the_cap_still_holds(
    capped: httpx.Client, capped_app: Starlette
) -> None:
    for n in range(CAP + 2):
        post(capped, f"r{n}")
    assert len(capped_app.state.store.idempotency) == CAP
    assert capped.post("/_mock/reset").status_code == 200
    assert len(capped_app.state.store.idempotency) == 0
    for n in range(2 * CAP):
        post(capped, f"s{n}")
    assert len(capped_app.state.store.idempotency) == CAP
