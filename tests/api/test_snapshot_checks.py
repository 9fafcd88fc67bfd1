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
