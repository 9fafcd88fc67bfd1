"""The plugin's contract: every test starts from a clean slate, whichever fixture it uses and
whichever fixture changed the mock before it. A consumer suite, run by pytester, changes every
kind of state in one test and finds none of it in the next."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import contextlib

import httpx

AUTH = {"Authorization": "Bearer sk_test_mock_full"}
START = "2026-01-15T09:00:00Z"
FIRST = []  # what the first request of each test was answered
KEYS = []  # of the accounts opened


@contextlib.contextmanager
def root(fixture):
    # mock_client is a client at the server's root; mock_server gives the root's URL.
    if isinstance(fixture, httpx.Client):
        yield fixture
    else:
        with httpx.Client(base_url=fixture.url, headers=AUTH) as client:
            yield client


def first_create(client, title):
    body = {"title": title, "vault_id": "vault_mock_us"}
    created = client.post("/v1/documents", json=body, headers={"Idempotency-Key": "k"})
    assert created.status_code == 201, created.text  # the key is free again after a reset
    headers = created.headers
    FIRST.append((created.json()["id"], headers["x-request-id"], headers["x-ratelimit-remaining"]))
    assert FIRST[-1] == FIRST[0]  # id streams and rate windows start again


def change_everything(fixture):
    with root(fixture) as client:
        first_create(client, "before")
        hook = {"url": "http://127.0.0.1:9/hook", "events": ["document.created"]}
        assert client.post("/v1/webhook_endpoints", json=hook).status_code == 201
        body = {"title": "delivered", "vault_id": "vault_mock_us"}
        assert client.post("/v1/documents", json=body).status_code == 201
        assert client.post("/_mock/scenarios", json={"name": "legal_hold"}).status_code == 201
        account = client.post("/_mock/accounts", json={"region": "eu"})
        KEYS.append(account.json()["keys"]["full"])
        assert client.post("/_mock/clock/advance", json={"seconds": 3600}).status_code == 200
        assert client.get("/_mock/clock").json()["now"] != START


def find_a_clean_slate(fixture):
    with root(fixture) as client:
        first_create(client, "after")
        assert client.get("/_mock/clock").json()["now"] == START
        assert client.get("/v1/webhook_endpoints").json()["data"] == []
        assert client.get("/_mock/webhooks/deliveries").json()["data"] == []
        assert client.get("/_mock/scenarios").json()["data"] == []
        stranger = {"Authorization": "Bearer " + KEYS[-1]}
        assert client.get("/v1/whoami", headers=stranger).status_code == 401
        page = client.get("/v1/documents", params={"limit": 100}).json()["data"]
        titles = {doc["title"] for doc in page}
        assert "after" in titles
        assert not titles & {"before", "delivered", "Supplier agreement (litigation pending)"}
        journal = client.get("/_mock/requests").json()["data"]  # newest first
        assert (journal[-1]["method"], journal[-1]["path"]) == ("POST", "/v1/documents")
        assert "/_mock/clock/advance" not in {entry["path"] for entry in journal}


def test_1_mock_client_changes_everything(mock_client):
    change_everything(mock_client)


def test_2_mock_client_finds_a_clean_slate(mock_client):
    find_a_clean_slate(mock_client)


def test_3_mock_server_changes_everything(mock_server):
    change_everything(mock_server)


def test_4_mock_server_finds_a_clean_slate(mock_server):
    find_a_clean_slate(mock_server)


def test_5_mock_client_changes_everything(mock_client):
    change_everything(mock_client)


def test_6_mock_server_finds_a_clean_slate_after_mock_client(mock_server):
    find_a_clean_slate(mock_server)


def test_7_mock_server_changes_everything(mock_server):
    change_everything(mock_server)


def test_8_mock_client_finds_a_clean_slate_after_mock_server(mock_client):
    find_a_clean_slate(mock_client)


def test_9_the_clock_is_back_at_its_start(mock_server, mock_client):
    assert mock_server.now() == START
    assert mock_client.get("/_mock/clock").json()["now"] == START
"""


def test_every_test_starts_from_a_clean_slate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=9)
