"""`GET /_mock/requests`: the request journal, its filters, masking, bounds and reset."""

from __future__ import annotations

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.engine.journal import BODY_LIMIT
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import READONLY, auth


def journal(client: httpx.Client, **filters: object) -> list[dict[str, object]]:
    response = client.get("/_mock/requests", params=filters)
    assert response.status_code == 200, response.text
    data: list[dict[str, object]] = response.json()["data"]
    return data


def test_an_entry_holds_the_request_and_its_answer(both: httpx.Client) -> None:
    created = both.post(
        "/us/v1/documents?x=1", json={"title": "Journal", "vault_id": "vault_mock_us"}
    )
    [entry] = journal(both)
    assert entry["seq"] == 1
    assert entry["time"] == "2026-01-15T09:00:00Z"
    assert (entry["method"], entry["path"], entry["query"]) == ("POST", "/us/v1/documents", "x=1")
    assert entry["key"] == "sk_test_********full"
    assert entry["status"] == 201
    assert entry["rule"] is None
    request, response = entry["request"], entry["response"]
    assert isinstance(request, dict)
    assert isinstance(response, dict)
    assert request["body"] == {"title": "Journal", "vault_id": "vault_mock_us"}
    assert request["headers"]["authorization"] == "Bearer sk_test_********full"
    assert response["body"] == created.json()
    assert response["headers"]["x-request-id"] == created.headers["x-request-id"]
    assert response["truncated"] is False


def test_errors_are_journaled_with_their_envelope(both: httpx.Client) -> None:
    both.get("/v1/documents/doc_nowhere")
    [entry] = journal(both)
    assert entry["status"] == 404
    response = entry["response"]
    assert isinstance(response, dict)
    assert response["body"]["error"]["type"] == "not_found"


def test_filters_and_order(both: httpx.Client) -> None:
    both.get("/v1/whoami")
    both.get("/v1/vaults", headers=auth(READONLY))
    both.post("/v1/vaults", json={"name": "x", "region": "us"}, headers=auth(READONLY))
    both.get("/v1/documents/doc_nowhere")
    assert [e["path"] for e in journal(both)] == [
        "/v1/documents/doc_nowhere",
        "/v1/vaults",
        "/v1/vaults",
        "/v1/whoami",
    ]
    assert [e["seq"] for e in journal(both, method="post")] == [3]
    assert [e["seq"] for e in journal(both, path="/v1/vaults")] == [3, 2]
    assert [e["seq"] for e in journal(both, status=403)] == [3]
    assert [e["seq"] for e in journal(both, key=READONLY)] == [3, 2]
    assert [e["seq"] for e in journal(both, limit=1)] == [4]


def test_a_request_is_found_by_the_request_id_its_client_got(both: httpx.Client) -> None:
    both.get("/v1/whoami")
    refused = both.get("/v1/documents/doc_nowhere")
    both.get("/v1/vaults")
    [entry] = journal(both, request_id=refused.headers["x-request-id"])
    assert (entry["seq"], entry["status"]) == (2, 404)
    assert entry["explain"]["check"] == "not_found"
    assert journal(both, request_id="req_nothing_like_it") == []
    assert [e["path"] for e in journal(both, seq=3)] == ["/v1/vaults"]
    assert journal(both, seq=99) == []


def test_an_idempotent_replay_is_found_by_the_id_it_replays(api: httpx.Client) -> None:
    body, key = {"name": "once", "region": "us"}, {"Idempotency-Key": "journal-once"}
    first = api.post("/v1/vaults", json=body, headers=key)
    again = api.post("/v1/vaults", json=body, headers=key)
    assert again.headers["x-request-id"] == first.headers["x-request-id"]
    found = journal(api, request_id=first.headers["x-request-id"])
    assert [e["seq"] for e in found] == [2, 1]
    assert [e["request_id"] for e in found] == [first.headers["x-request-id"]] * 2


def test_each_entry_carries_the_request_id_its_client_got(both: httpx.Client) -> None:
    answers = [both.get("/v1/whoami"), both.get("/v1/documents/doc_nowhere")]
    entries = journal(both)
    assert [e["request_id"] for e in entries] == [a.headers["x-request-id"] for a in answers][::-1]


def test_an_accounts_journal_finds_only_its_own_requests(api: httpx.Client) -> None:
    made = api.post("/_mock/accounts", json={"name": "journal-find"}).json()
    mine = api.get("/v1/whoami", headers=auth(made["keys"]["full"]))
    theirs = api.get("/v1/whoami")
    base = f"/_mock/accounts/{made['id']}/requests"
    found = api.get(base, params={"request_id": mine.headers["x-request-id"]}).json()["data"]
    assert [e["account"] for e in found] == [made["id"]]
    other = api.get(base, params={"request_id": theirs.headers["x-request-id"]}).json()["data"]
    assert other == []


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"status": "abc"}, "status"),
        ({"limit": "0"}, "limit"),
        ({"seq": "first"}, "seq"),
        ({"seq": "-1"}, "seq"),
        ({"request_id": ""}, "request_id"),
    ],
)
def test_bad_filters(api: httpx.Client, params: dict[str, str], param: str) -> None:
    error = assert_envelope(api.get("/_mock/requests", params=params), 422, "validation_error")
    assert error["param"] == param


def test_control_plane_calls_are_not_journaled(both: httpx.Client) -> None:
    both.get("/_mock/clock")
    both.get("/_mock/requests")
    assert journal(both) == []


def test_bodies_are_cut_at_the_bound(api: httpx.Client) -> None:
    title = "x" * 400
    for _ in range(60):
        api.post("/v1/documents", json={"title": title, "vault_id": "vault_mock_us"})
    api.get("/v1/documents?limit=100")
    entry = journal(api, method="GET")[0]
    response = entry["response"]
    assert isinstance(response, dict)
    assert response["truncated"] is True
    assert response["size"] > BODY_LIMIT
    assert isinstance(response["body"], str)
    assert len(response["body"]) <= BODY_LIMIT


def test_reset_empties_it(both: httpx.Client) -> None:
    both.get("/v1/whoami")
    both.post("/_mock/reset")
    assert journal(both) == []
    both.get("/v1/whoami")
    assert journal(both)[0]["seq"] == 1


def test_the_ring_keeps_the_latest() -> None:
    app = create_app(Settings(clock_mode="frozen", journal_size=3))
    with inprocess_client(app, headers=auth()) as client:
        for _ in range(5):
            client.get("/v1/whoami")
        response = client.get("/_mock/requests").json()
        assert [e["seq"] for e in response["data"]] == [5, 4, 3]
        assert response["total"] == 3
