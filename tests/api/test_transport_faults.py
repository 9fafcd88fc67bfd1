"""Transport faults of scenario rules, in-process and over a real socket: the client gets the
httpx error a broken connection gives, the sandbox's state says whether the request ran, and
the journal marks the request with `fault`, `committed` and `explain`."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.support.scenarios import create_doc, load

FAULTS = """
name: faults
rules:
  - name: reset
    match: {headers: {x-fault: reset}}
    respond: {fault: reset}
  - name: drop
    match: {headers: {x-fault: drop}}
    respond: {fault: drop_after_commit}
  - name: truncate
    match: {headers: {x-fault: truncate}}
    respond: {fault: truncate}
  - name: truncate-injected
    match: {headers: {x-fault: truncate-injected}}
    respond: {fault: truncate, status: 503, error: {message: Busy.}}
  - name: slow
    match: {headers: {x-fault: slow}}
    respond: {fault: slow_body, bytes_per_second: 4000}
  - name: stall
    match: {headers: {x-fault: stall}}
    respond: {fault: stall, stall_ms: 20000}
  - name: short-stall
    match: {headers: {x-fault: short-stall}}
    respond: {fault: stall, stall_ms: 300}
"""

# Both ways a client may ask: httpx's default (gzip accepted) and identity only.
ENCODINGS = ["gzip, deflate", "identity"]


@pytest.fixture
def client(both: httpx.Client) -> httpx.Client:
    load(both, FAULTS)
    return both


def last_entry(client: httpx.Client, path: str | None = None) -> dict[str, Any]:
    entries = client.get("/_mock/requests", params={"limit": 20}).json()["data"]
    entry: dict[str, Any] = next(e for e in entries if path is None or e["path"] == path)
    return entry


def titles(client: httpx.Client) -> list[str]:
    listed = client.get("/v1/documents", params={"vault_id": "vault_mock_us", "limit": 100})
    return [doc["title"] for doc in listed.json()["data"]]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_reset_is_a_transport_error_and_nothing_is_created(
    client: httpx.Client, encoding: str
) -> None:
    with pytest.raises(httpx.ReadError):
        create_doc(client, "never", **{"x-fault": "reset", "accept-encoding": encoding})
    entry = last_entry(client, "/v1/documents")
    assert entry["method"] == "POST"
    assert (entry["fault"], entry["committed"], entry["status"]) == ("reset", False, None)
    assert entry["explain"]["check"] == "scenario"
    assert (entry["explain"]["rule"], entry["explain"]["fault"]) == ("reset", "reset")
    assert "reset" in entry["explain"]["message"]
    assert entry["request"]["body"] == {"title": "never", "vault_id": "vault_mock_us"}
    assert "never" not in titles(client)
    assert client.get("/v1/whoami").status_code == 200  # the next request is answered


def test_forwarded_headers_do_not_hide_the_connection_a_fault_breaks(
    client: httpx.Client,
) -> None:
    """The server answers the peer it is connected to: a loopback client's `X-Forwarded-For`
    does not become its address (uvicorn's proxy headers are off), so the connection is found
    and reset, rather than the request answered 500."""
    forwarded = {"x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https"}
    with pytest.raises(httpx.ReadError):
        create_doc(client, "never", **{"x-fault": "reset", **forwarded})
    assert last_entry(client, "/v1/documents")["fault"] == "reset"
    assert "never" not in titles(client)
    with client.stream("GET", "/v1/documents", headers={"x-fault": "truncate", **forwarded}) as r:
        assert r.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):
            r.read()
    assert last_entry(client, "/v1/documents")["fault"] == "truncate"


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_truncate_sends_the_status_and_fails_reading_the_body(
    client: httpx.Client, encoding: str
) -> None:
    headers = {"x-fault": "truncate", "accept-encoding": encoding}
    with client.stream("GET", "/v1/documents", headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        with pytest.raises(httpx.RemoteProtocolError):
            response.read()
    entry = last_entry(client, "/v1/documents")
    assert (entry["fault"], entry["committed"], entry["status"]) == ("truncate", True, 200)
    with pytest.raises(httpx.RemoteProtocolError):  # a plain call reads the body too
        client.get("/v1/documents", headers=headers)


def test_truncate_of_an_injected_answer(client: httpx.Client) -> None:
    headers = {"x-fault": "truncate-injected"}
    with client.stream("GET", "/v1/whoami", headers=headers) as response:
        assert response.status_code == 503
        with pytest.raises(httpx.RemoteProtocolError):
            response.read()
    entry = last_entry(client, "/v1/whoami")
    assert (entry["fault"], entry["status"]) == ("truncate", 503)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_drop_after_commit_then_the_keyed_retry_replays_the_original(
    client: httpx.Client, encoding: str
) -> None:
    key = f"lost-create-{encoding}"
    lost = {"x-fault": "drop", "idempotency-key": key, "accept-encoding": encoding}
    with pytest.raises(httpx.TransportError) as raised:
        create_doc(client, "lost answer", **lost)
    assert isinstance(raised.value, httpx.RemoteProtocolError)
    first = last_entry(client, "/v1/documents")
    assert (first["fault"], first["committed"], first["status"]) == (
        "drop_after_commit",
        True,
        201,
    )
    assert titles(client).count("lost answer") == 1  # it was created, once

    retry = create_doc(client, "lost answer", **{"idempotency-key": key})
    assert retry.status_code == 201
    assert retry.headers["idempotent-replayed"] == "true"
    assert retry.json()["id"] == first["response"]["body"]["id"]
    assert titles(client).count("lost answer") == 1


def test_slow_body_takes_the_size_over_the_rate(client: httpx.Client) -> None:
    plain = client.get("/v1/documents")
    started = time.monotonic()
    slow = client.get("/v1/documents", headers={"x-fault": "slow"})
    elapsed = time.monotonic() - started
    assert slow.status_code == 200
    assert slow.json() == plain.json()  # all of it, only slowly
    raw_size = int(slow.headers.get("content-length") or len(slow.content))
    assert elapsed >= raw_size / 4000 * 0.95
    entry = last_entry(client, "/v1/documents")
    assert (entry["fault"], entry["committed"]) == ("slow_body", True)
    assert "4000 bytes per second" in entry["explain"]["message"]


def test_slow_body_trips_a_read_timeout_shorter_than_its_gaps(both: httpx.Client) -> None:
    load(
        both,
        """
        name: trickle
        rules:
          - name: trickle
            match: {path: /v1/whoami}
            respond: {fault: slow_body, bytes_per_second: 2}
        """,
    )
    with pytest.raises(httpx.ReadTimeout):
        both.get("/v1/whoami", timeout=httpx.Timeout(10, read=0.2))


def test_stall_trips_the_client_read_timeout(client: httpx.Client) -> None:
    with pytest.raises(httpx.ReadTimeout):
        client.get("/v1/whoami", headers={"x-fault": "stall"}, timeout=httpx.Timeout(10, read=0.3))
    entry = last_entry(client, "/v1/whoami")
    assert (entry["fault"], entry["committed"], entry["status"]) == ("stall", False, None)
    assert client.get("/v1/whoami").status_code == 200


def test_a_stall_shorter_than_the_timeout_ends_in_a_reset(client: httpx.Client) -> None:
    started = time.monotonic()
    with pytest.raises(httpx.ReadError):
        client.get("/v1/whoami", headers={"x-fault": "short-stall"})
    assert time.monotonic() - started >= 0.29


def test_requests_no_rule_matches_are_untouched(client: httpx.Client) -> None:
    answer = client.get("/v1/documents")
    assert answer.status_code == 200
    entry = last_entry(client, "/v1/documents")
    assert (entry["fault"], entry["committed"], entry["chaos"]) == (None, None, None)


def test_faults_in_an_account_sandbox(both: httpx.Client) -> None:
    made = both.post("/_mock/accounts", json={"name": "faulty"})
    assert made.status_code == 201, made.text
    account = made.json()
    key = account["keys"]["full"]
    loaded = both.post(
        f"/_mock/accounts/{account['id']}/scenarios",
        json={
            "yaml": "name: a\nrules:\n  - name: r\n    match: {path: /v1/whoami}\n"
            "    respond: {fault: reset}\n"
        },
    )
    assert loaded.status_code == 201, loaded.text
    mine = {"authorization": f"Bearer {key}"}
    with pytest.raises(httpx.ReadError):
        both.get("/v1/whoami", headers=mine)
    assert both.get("/v1/whoami").status_code == 200  # another account: no fault
    entries = both.get("/_mock/requests", params={"account": account["id"]}).json()["data"]
    assert entries[0]["fault"] == "reset"


def test_a_snapshot_keeps_the_fault_marks_of_the_journal(api: httpx.Client) -> None:
    load(api, FAULTS)
    with pytest.raises(httpx.ReadError):
        api.get("/v1/whoami", headers={"x-fault": "reset"})
    assert api.post("/_mock/snapshots", json={"name": "faulted"}).status_code == 201
    assert api.post("/_mock/reset").status_code == 200
    assert api.post("/_mock/snapshots/faulted/restore").status_code == 200
    entry = last_entry(api, "/v1/whoami")
    assert (entry["fault"], entry["committed"], entry["status"]) == ("reset", False, None)
    assert entry["explain"]["fault"] == "reset"
