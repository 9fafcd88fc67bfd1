"""The named snapshots a sandbox keeps are bounded: at most 64, and 1 GiB of files together.
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
        limit = f"would take the sandbox's snapshot files past {size * 5 // 2:,} bytes"
        assert limit in error["message"]
    assert _names(api) == ["a", "b"]
    assert api.post("/_mock/snapshots", json={"name": "b"}).status_code == 201  # replaced


def test_an_account_sandbox_has_the_same_limits(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshots, "MAX_NAMED", 2)
    made = api.post("/_mock/accounts", json={"name": "Own"}).json()
    base = f"/_mock/accounts/{made['id']}"
    for name in ("a", "b"):
        assert api.post(f"{base}/snapshots", json={"name": name}).status_code == 201
    error = assert_envelope(api.post(f"{base}/snapshots", json={"name": "c"}), 409, "conflict")
    assert "keeps 2 named snapshots" in error["message"]
    assert _names(api, base) == ["a", "b"]
