"""A snapshot file is checked so that whatever the restored sandbox does next works: whose it
is (an account's restores only into that account, a server's only into a server), its times,
its references and workflows, and the answers its idempotency records replay. A file that
breaks a check is 422 on `file`, names the place, and changes nothing."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import orjson
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth
from tests.support.snapshot_files import first_record

Edit = Callable[[dict[str, Any]], None]


@pytest.fixture
def mock() -> Iterator[httpx.Client]:
    with inprocess_client(create_app(Settings(clock_mode="frozen")), headers=auth()) as client:
        yield client


def download(client: httpx.Client, base: str = "/_mock") -> dict[str, Any]:
    """A new snapshot of `base` (the server, or `/_mock/accounts/{id}`), as its parsed file
    without its checksum (so it can be edited)."""
    assert client.post(f"{base}/snapshots", json={"name": "taken"}).status_code == 201
    parsed: dict[str, Any] = orjson.loads(client.get(f"{base}/snapshots/taken/download").content)
    parsed.pop("sha256")
    return parsed


def listing(client: httpx.Client, base: str = "/_mock") -> list[str]:
    return [s["name"] for s in client.get(f"{base}/snapshots").json()["data"]]


def refused(client: httpx.Client, data: dict[str, Any], where: str, base: str = "/_mock") -> str:
    """Upload `data` to `base`: 422 on `file` naming `where`, and nothing stored."""
    before = listing(client, base)
    attempt = client.post(
        f"{base}/snapshots/upload", params={"name": "crafted"}, content=orjson.dumps(data)
    )
    error = assert_envelope(attempt, 422, "validation_error")
    assert error["param"] == "file"
    assert where in error["message"], error["message"]
    assert listing(client, base) == before
    return error["message"]


def edited(data: dict[str, Any], edit: Edit) -> dict[str, Any]:
    copied = copy.deepcopy(data)
    edit(copied)
    return copied


# -- whose file it is ----------------------------------------------------------------------


def test_an_accounts_file_with_another_accounts_header_is_refused(mock: httpx.Client) -> None:
    """A's file with B's `seed`, `random_seed` and `start` pasted in: the state still holds A,
    so it is not B's, at upload and at restore."""
    a = mock.post("/_mock/accounts", json={"name": "A"}).json()
    b = mock.post("/_mock/accounts", json={"name": "B"}).json()
    theirs, base = download(mock, f"/_mock/accounts/{a['id']}"), f"/_mock/accounts/{b['id']}"
    mine = download(mock, base)
    for name in ("seed", "random_seed", "start"):
        theirs[name] = mine[name]
    refused(mock, theirs, "state.accounts", base)


def test_a_servers_file_does_not_restore_into_an_account(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={"name": "A"}).json()
    base = f"/_mock/accounts/{made['id']}"
    server, mine = download(mock), download(mock, base)
    for name in ("seed", "random_seed", "start"):
        server[name] = mine[name]
    server["state"]["account_sandboxes"] = []
    refused(mock, server, "state.accounts", base)


def test_an_accounts_file_does_not_restore_into_the_server(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={"name": "A"}).json()
    account, server = download(mock, f"/_mock/accounts/{made['id']}"), download(mock)
    for name in ("seed", "random_seed", "start"):
        account[name] = server[name]
    refused(mock, account, "state.accounts")


def test_an_accounts_own_file_still_restores(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={"name": "A"}).json()
    base = f"/_mock/accounts/{made['id']}"
    data = orjson.dumps(download(mock, base))
    uploaded = mock.post(f"{base}/snapshots/upload", params={"name": "back"}, content=data)
    assert uploaded.status_code == 201, uploaded.text
    assert mock.post(f"{base}/snapshots/back/restore").status_code == 200
    assert mock.post("/_mock/snapshots", json={"name": "all"}).status_code == 201
    whole = mock.get("/_mock/snapshots/all/download").content
    assert mock.post("/_mock/snapshots/upload", params={"name": "again"}, content=whole).is_success


# -- times ---------------------------------------------------------------------------------


def busy(client: httpx.Client) -> dict[str, Any]:
    """A file of a sandbox with a workflow, a keyed document, a webhook delivery waiting and a
    request journal."""
    client.post("/v1/webhook_endpoints", json={"url": "http://127.0.0.1:9/x", "events": ["*"]})
    vault = client.post("/v1/vaults", json={"name": "V", "region": "us"}).json()
    body = {"title": "Doc", "vault_id": vault["id"]}
    doc = client.post("/v1/documents", json=body, headers={"Idempotency-Key": "k"}).json()
    steps = [{"assignee": "ann@example.com"}, {"assignee": "bo@example.com"}]
    client.post("/v1/workflows", json={"document_id": doc["id"], "steps": steps})
    client.post("/_mock/webhooks/wait")
    return download(client)


def clock_at(seconds: float) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["state"]["clock"].update({"now": seconds, "frozen_at": seconds})

    return edit


def record_field(tag: str, name: str, value: Any) -> Edit:
    return lambda data: first_record(data, tag).update({name: value})


TIMES: list[tuple[str, Edit, str]] = [
    ("the clock in the year -29719", clock_at(-1e12), "state.clock.now"),
    ("the clock in the year 33658", clock_at(1e12), "state.clock.now"),
    ("the clock a second before the year 1", clock_at(-62_135_596_801), "state.clock.now"),
    ("a file saved in the year 10**10", lambda d: d.update(created_at=10**18), "created_at"),
    ("a file saved before the year 1", lambda d: d.update(created_at=-(10**12)), "created_at"),
    ("a document made after 9999", record_field("Document", "created_at", 10**12), "created_at"),
    ("a timer due before the year 1", record_field("Timer", "due", -1e12), "due"),
    ("a journal entry at -1e12", record_field("Entry", "at", -1e12), "at"),
    ("a key kept until 1e18", record_field("Record", "expires_at", 1e18), "expires_at"),
    (
        "a rate window of -1e12",
        lambda d: next(iter(d["state"]["rate_limits"]["windows"].values())).append(-1e12),
        "rate_limits.windows",
    ),
    ("a vault locking after 1e17 s", record_field("Vault", "lock_after", 10**17), "lock_after"),
]


@pytest.mark.parametrize(("what", "edit", "where"), TIMES, ids=[t[0] for t in TIMES])
def test_a_time_out_of_range_is_refused(
    mock: httpx.Client, what: str, edit: Edit, where: str
) -> None:
    refused(mock, edited(busy(mock), edit), where)
    assert mock.get("/_mock/snapshots").status_code == 200
    assert mock.get("/_mock/clock").json()["now"] == "2026-01-15T09:00:00Z"


def test_the_last_second_of_9999_is_a_time_and_the_clock_stops_there(mock: httpx.Client) -> None:
    """A file at the last second a timestamp can show restores and serves; the clock does not
    move past it, and a timer due after it waits (it is only compared with the clock)."""
    data = edited(busy(mock), clock_at(253_402_300_799))
    first_record(data, "Timer")["due"] = 1e12
    ok = mock.post("/_mock/snapshots/upload", params={"name": "end"}, content=orjson.dumps(data))
    assert ok.status_code == 201, ok.text
    assert mock.post("/_mock/snapshots/end/restore").status_code == 200
    assert mock.get("/_mock/clock").json()["now"] == "9999-12-31T23:59:59Z"
    moved = mock.post("/_mock/clock/advance", json={"seconds": 1})
    assert assert_envelope(moved, 422, "validation_error")["param"] == "seconds"
    assert mock.get("/_mock/webhooks/deliveries").status_code == 200
    again = mock.post("/_mock/snapshots", json={"name": "again"})
    assert again.status_code == 201
    whole = mock.get("/_mock/snapshots/again/download").content
    assert mock.post("/_mock/snapshots/upload", params={"name": "up"}, content=whole).is_success


# -- references and workflows --------------------------------------------------------------


def added(data: dict[str, Any], kind: str) -> dict[str, Any]:
    """The first record of `kind` (vaults, documents, workflows) a world added to its seed."""
    for _, world in data["state"]["worlds"]:
        for region in world["regions"].values():
            for item in region[kind]:
                if "$" in item:
                    return item  # type: ignore[no-any-return]
    raise LookupError(kind)


def active(data: dict[str, Any]) -> dict[str, str]:
    for _, world in data["state"]["worlds"]:
        if world["active_workflows"]:
            return world["active_workflows"]  # type: ignore[no-any-return]
    raise LookupError("active_workflows")


def retarget_active(data: dict[str, Any]) -> None:
    """The active workflow of the new document moved to a seeded document of the world."""
    found = active(data)
    doc_id, workflow_id = next(iter(found.items()))
    del found[doc_id]
    found["doc_mock_draft"] = workflow_id


REFERENCES: list[tuple[str, Edit, str]] = [
    ("a workflow of no steps", lambda d: added(d, "workflows").update(steps=[]), "steps"),
    (
        "a workflow past its last step",
        lambda d: added(d, "workflows").update(current_step=3),
        "current_step",
    ),
    (
        "an active workflow of no document",
        lambda d: active(d).update(doc_nowhere=next(iter(active(d).values()))),
        "doc_nowhere",
    ),
    ("an active workflow of another document", retarget_active, "active workflow"),
    (
        "an active workflow that is not in the world",
        lambda d: active(d).update({next(iter(active(d))): "wf_nowhere"}),
        "wf_nowhere",
    ),
    (
        "a webhook book under another world",
        lambda d: first_record(d, "WebhookBook").update(environment="live"),
        "webhooks.books",
    ),
    (
        "a journal entry of an account the file does not have",
        lambda d: first_record(d, "Entry").update(account="acct_nobody"),
        "acct_nobody",
    ),
]


@pytest.mark.parametrize(("what", "edit", "where"), REFERENCES, ids=[r[0] for r in REFERENCES])
def test_a_reference_that_does_not_resolve_is_refused(
    mock: httpx.Client, what: str, edit: Edit, where: str
) -> None:
    refused(mock, edited(busy(mock), edit), where)


# -- the answers idempotency records replay ------------------------------------------------


def kept_answer(edit: Callable[[bytes], bytes]) -> Edit:
    """An edit of the first idempotency record's stored answer (as bytes)."""

    def change(data: dict[str, Any]) -> None:
        record = first_record(data, "Record")
        record["response"] = edit(record["response"].encode()).decode()

    return change


def with_header(line: bytes) -> Callable[[bytes], bytes]:
    return lambda stored: stored.replace(b"\r\n\r\n", b"\r\n" + line + b"\r\n\r\n", 1)


def header_set(name: bytes, value: bytes) -> Callable[[bytes], bytes]:
    def change(stored: bytes) -> bytes:
        head, _, body = stored.partition(b"\r\n\r\n")
        lines = [
            name + b": " + value if line.lower().startswith(name + b":") else line
            for line in head.split(b"\r\n")
        ]
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    return change


KEPT: list[tuple[str, Callable[[bytes], bytes]]] = [
    ("a cookie for the inspector", with_header(b"set-cookie: mock_admin_token=x; Path=/_mock")),
    ("a header the mock never writes", with_header(b"x-frame-options: ALLOW")),
    ("a second content-length", with_header(b"content-length: 0")),
    ("an HTML answer", header_set(b"content-type", b"text/html")),
    ("a content-length that is not the body's", header_set(b"content-length", b"3")),
    ("a request id that is not one", header_set(b"x-request-id", b"req_\x01")),
    ("a status that is not a number", lambda stored: b"abc" + stored[3:]),
    ("a status that is never kept", lambda stored: b"500" + stored[3:]),
    ("no head at all", lambda stored: b"garbage"),
]


@pytest.mark.parametrize(("what", "edit"), KEPT, ids=[k[0] for k in KEPT])
def test_a_stored_answer_holds_only_what_the_mock_writes(
    mock: httpx.Client, what: str, edit: Callable[[bytes], bytes]
) -> None:
    refused(mock, edited(busy(mock), kept_answer(edit)), "response")


def test_a_stored_answer_replays_as_the_mock_wrote_it(mock: httpx.Client) -> None:
    """The unchanged file's kept answers load, and replay byte for byte after a restore."""
    key = {"Idempotency-Key": "vault"}
    answer = mock.post("/v1/vaults", json={"name": "V", "region": "us"}, headers=key)
    assert answer.status_code == 201
    data = orjson.dumps(download(mock))
    assert mock.post("/_mock/snapshots/upload", params={"name": "up"}, content=data).is_success
    assert mock.post("/_mock/snapshots/up/restore").status_code == 200
    replayed = mock.post("/v1/vaults", json={"name": "V", "region": "us"}, headers=key)
    assert replayed.headers["idempotent-replayed"] == "true"
    assert replayed.content == answer.content
    assert replayed.headers["x-request-id"] == answer.headers["x-request-id"]
