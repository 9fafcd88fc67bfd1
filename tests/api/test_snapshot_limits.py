"""The named snapshots a server keeps (its own and its account sandboxes' together) are bounded:
at most 64, and 1 GiB of files.
Past either, a save or an upload is 409 `conflict` saying which limit, and nothing changes;
saving over a name that is kept replaces it and always has room."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.engine import snapshots
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth


@pytest.fixture
def api() -> Iterator[httpx.Client]:
    with inprocess_client(create_app(Settings(clock_mode="frozen")), headers=auth()) as client:
        yield client


def _names(client: httpx.Client, base: str = "/_mock") -> list[str]:
    return [s["name"] for s in client.get(f"{base}/snapshots").json()["data"]]


def test_at_most_64_named_snapshots(api: httpx.Client) -> None:
    for index in range(64):
        assert api.post("/_mock/snapshots", json={"name": f"s{index}"}).status_code == 201
    data = api.get("/_mock/snapshots/s0/download").content
    for refused in (
        api.post("/_mock/snapshots", json={"name": "one_more"}),
        api.post("/_mock/snapshots/upload", params={"name": "one_more"}, content=data),
    ):
        error = assert_envelope(refused, 409, "conflict")
        assert "keeps 64 named snapshots, the most it may" in error["message"]
        assert error["param"] == "name"
    assert _names(api) == [f"s{index}" for index in range(64)]
    # a kept name is replaced, by a save or an upload; a deleted one makes room
    assert api.post("/_mock/snapshots", json={"name": "s3"}).status_code == 201
    uploaded = api.post("/_mock/snapshots/upload", params={"name": "s5"}, content=data)
    assert uploaded.status_code == 201
    api.delete("/_mock/snapshots/s0")
    assert api.post("/_mock/snapshots", json={"name": "one_more"}).status_code == 201


def test_at_most_a_gibibyte_of_snapshot_files(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit is lowered to two and a half files here, so the test stays small."""
    api.post("/_mock/snapshots", json={"name": "a"})
    size = api.get("/_mock/snapshots").json()["data"][0]["bytes"]
    monkeypatch.setattr(snapshots, "MAX_KEPT_BYTES", size * 5 // 2)
    assert api.post("/_mock/snapshots", json={"name": "b"}).status_code == 201
    data = api.get("/_mock/snapshots/a/download").content
    for refused in (
        api.post("/_mock/snapshots", json={"name": "c"}),
        api.post("/_mock/snapshots/upload", params={"name": "c"}, content=data),
    ):
        error = assert_envelope(refused, 409, "conflict")
        limit = f"would take the server's snapshot files past {size * 5 // 2:,} bytes"
        assert limit in error["message"]
    assert _names(api) == ["a", "b"]
    assert api.post("/_mock/snapshots", json={"name": "b"}).status_code == 201  # replaced


def _account(api: httpx.Client, name: str) -> str:
    made = api.post("/_mock/accounts", json={"name": name})
    assert made.status_code == 201, made.text
    return f"/_mock/accounts/{made.json()['id']}"


def test_the_64_are_counted_across_the_server_and_its_accounts(api: httpx.Client) -> None:
    """The limit is the server's: its own snapshots and every account sandbox's together."""
    a, b = _account(api, "A"), _account(api, "B")
    for base, prefix, count in (("/_mock", "s", 30), (a, "a", 20), (b, "b", 14)):
        for index in range(count):
            saved = api.post(f"{base}/snapshots", json={"name": f"{prefix}{index}"})
            assert saved.status_code == 201, saved.text
    data = api.get(f"{b}/snapshots/b0/download").content
    # a name another sandbox keeps is another snapshot: it counts
    for base, kept_elsewhere in (("/_mock", "a0"), (a, "s0"), (b, "a0")):
        for refused in (
            api.post(f"{base}/snapshots", json={"name": "one_more"}),
            api.post(f"{base}/snapshots", json={"name": kept_elsewhere}),
            api.post(f"{b}/snapshots/upload", params={"name": "one_more"}, content=data),
        ):
            error = assert_envelope(refused, 409, "conflict")
            assert "The server keeps 64 named snapshots" in error["message"]
            assert "account sandboxes'" in error["message"]
            assert error["param"] == "name"
    assert (len(_names(api)), len(_names(api, a)), len(_names(api, b))) == (30, 20, 14)
    # saving over a name the same sandbox keeps replaces it, by a save or an upload
    assert api.post(f"{a}/snapshots", json={"name": "a3"}).status_code == 201
    uploaded = api.post(f"{b}/snapshots/upload", params={"name": "b5"}, content=data)
    assert uploaded.status_code == 201, uploaded.text
    assert (len(_names(api)), len(_names(api, a)), len(_names(api, b))) == (30, 20, 14)
    # deleting an account sandbox frees its share
    assert api.delete(a).status_code == 200
    for index in range(20):
        assert api.post(f"{b}/snapshots", json={"name": f"c{index}"}).status_code == 201
    assert api.post("/_mock/snapshots", json={"name": "one_more"}).status_code == 409


def test_the_bytes_are_counted_across_the_server_and_its_accounts(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit is lowered to the server's file, the account's and half an account's more."""
    a = _account(api, "A")
    api.post("/_mock/snapshots", json={"name": "server"})
    api.post(f"{a}/snapshots", json={"name": "x"})
    server_size = api.get("/_mock/snapshots").json()["data"][0]["bytes"]
    account_size = api.get(f"{a}/snapshots").json()["data"][0]["bytes"]
    limit = server_size + account_size * 3 // 2
    monkeypatch.setattr(snapshots, "MAX_KEPT_BYTES", limit)
    data = api.get(f"{a}/snapshots/x/download").content
    for refused in (
        api.post(f"{a}/snapshots", json={"name": "y"}),
        api.post(f"{a}/snapshots/upload", params={"name": "y"}, content=data),
        api.post("/_mock/snapshots", json={"name": "y"}),
    ):
        error = assert_envelope(refused, 409, "conflict")
        assert f"would take the server's snapshot files past {limit:,} bytes" in error["message"]
    assert (_names(api), _names(api, a)) == (["server"], ["x"])
    assert api.post(f"{a}/snapshots", json={"name": "x"}).status_code == 201  # replaced
    # deleting the account sandbox frees its share: another account has room for one
    assert api.delete(a).status_code == 200
    b = _account(api, "B")
    assert api.post(f"{b}/snapshots", json={"name": "x"}).status_code == 201
