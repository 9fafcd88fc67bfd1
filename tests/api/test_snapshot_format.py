"""Snapshot files of every format, checked in, still load: the promise that an upgrade does
not strand saved snapshots. When the format moves on, each file stays as it is (the migrations
read it); the file of the new format is added beside it.

    python -m tests.api.test_snapshot_format   # writes data/snapshot-format-<FORMAT>.json again

(only needed if the packaged default seed changes: a file is tied to its seed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from mockserver.core.config import Settings
from mockserver.engine.snapshots.file import FORMAT
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import FULL, auth

FILE = Path(__file__).with_name("data") / "snapshot-format-1.json"
FORMAT_2 = Path(__file__).with_name("data") / "snapshot-format-2.json"
FORMAT_3 = Path(__file__).with_name("data") / "snapshot-format-3.json"
CURRENT = Path(__file__).with_name("data") / f"snapshot-format-{FORMAT}.json"
ACCOUNT = {"name": "Format two", "clock": {"mode": "frozen", "start_time": "2030-01-01T00:00:00Z"}}


# The clients' own User-Agent: the files' journals hold it, and httpx's default names its version.
AGENT = {"User-Agent": "snapshot-test-agent"}

DOCUMENT = {"title": "Kept across versions", "vault_id": "vault_mock_us", "metadata": {"n": 1}}
KEY = {"Idempotency-Key": "format-1"}


def _build(client: httpx.Client) -> None:
    """The state the checked-in file holds."""
    client.post("/v1/vaults", json={"name": "Format one", "region": "us"})
    doc = client.post("/v1/documents", json=DOCUMENT, headers=KEY).json()
    steps = [{"assignee": "ann@example.com"}]
    client.post("/v1/workflows", json={"document_id": doc["id"], "steps": steps})
    client.post("/v1/webhook_endpoints", json={"url": "https://example.com/hook", "events": ["*"]})


def _build_current(client: httpx.Client) -> str:
    """The state the file of the current format holds: format 1's, and an account with a
    sandbox and a clock of its own, with a vault; its full key."""
    _build(client)
    key: str = client.post("/_mock/accounts", json=ACCOUNT).json()["keys"]["full"]
    client.post(
        "/v1/vaults", json={"name": "In its own sandbox", "region": "us"}, headers=auth(key)
    )
    return key


def write() -> None:
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app, headers={**AGENT, **auth()}) as client:
        _build_current(client)
        client.post("/_mock/snapshots", json={"name": "current"})
        data = client.get("/_mock/snapshots/current/download").content
    CURRENT.write_bytes(orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2) + b"\n")


def _titles(client: httpx.Client, path: str, field: str) -> list[Any]:
    return [item[field] for item in client.get(path).json()["data"]]


def test_a_file_of_format_1_loads_and_serves_its_state() -> None:
    assert orjson.loads(FILE.read_bytes())["format"] == 1 <= FORMAT
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app, headers=auth()) as client:
        uploaded = client.post(
            "/_mock/snapshots/upload", params={"name": "old"}, content=FILE.read_bytes()
        )
        assert uploaded.status_code == 201, uploaded.text
        assert "Format one" not in _titles(client, "/v1/vaults", "name")
        assert client.post("/_mock/snapshots/old/restore").status_code == 200
        assert "Format one" in _titles(client, "/v1/vaults", "name")
        assert "Kept across versions" in _titles(client, "/v1/documents", "title")
        assert "https://example.com/hook" in _titles(client, "/v1/webhook_endpoints", "url")
        # The idempotency record came back with it: the same key replays the same document.
        replay = client.post("/v1/documents", json=DOCUMENT, headers=KEY)
        assert replay.headers["idempotent-replayed"] == "true"
        assert replay.json()["title"] == "Kept across versions"


def test_a_file_of_format_3_goes_on_with_the_ids_it_would_have_given() -> None:
    """Format 3 saved id streams with the words they had drawn but not used; the ids after
    restoring it are those the server that wrote it gave next (recorded from that server)."""
    app = create_app(Settings(clock_mode="frozen"))
    account_key = orjson.loads(FORMAT_3.read_bytes())["state"]["account_sandboxes"][0]["keys"][0]
    with inprocess_client(app, headers=auth()) as client:
        client.post(
            "/_mock/snapshots/upload", params={"name": "old"}, content=FORMAT_3.read_bytes()
        )
        assert client.post("/_mock/snapshots/old/restore").status_code == 200
        for key, first, thirtieth in (
            (
                FULL,
                ("vault_opWpXhQAJJAc1RbNFbkGWRAj", "req_qT7uo6l4hFKzhMnqveuTcJjz"),
                ("vault_KFvprCkokWz2an74AwOQZtTo", "req_ZAa4x4BPPO9O117qfrzNW2Kr"),
            ),
            (
                account_key,
                ("vault_8zfI4wkXo705ZS9A8HFtphIB", "req_Zk23EWcUD2PZu730T40xp0Hx"),
                ("vault_aQPL6qebMsfD2AfLKhp4FAdV", "req_prbb9nQQ6HPUnwJURNWM34DS"),
            ),
        ):
            made = []
            for _ in range(30):  # past the words the file kept unused
                vault = client.post(
                    "/v1/vaults", json={"name": "n", "region": "us"}, headers=auth(key)
                )
                made.append((vault.json()["id"], vault.headers["x-request-id"]))
            assert (made[0], made[-1]) == (first, thirtieth)


def _timeless(data: bytes) -> Any:
    """The file less what is measured on the wall clock: how long each request took."""
    parsed = orjson.loads(data)
    del parsed["sha256"]
    for entry in parsed["state"]["journal"]["entries"]:
        entry["duration"] = 0
    return parsed


@pytest.mark.parametrize("path", [FORMAT_2, FORMAT_3, CURRENT], ids=lambda p: p.stem)
def test_a_file_with_account_sandboxes_loads_and_serves_its_accounts_too(path: Path) -> None:
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app, headers=auth()) as client:
        key = client.post("/_mock/accounts", json=ACCOUNT).json()["keys"]["full"]
        uploaded = client.post(
            "/_mock/snapshots/upload", params={"name": "now"}, content=path.read_bytes()
        )
        assert uploaded.status_code == 201, uploaded.text
        assert client.post("/_mock/reset").status_code == 200
        assert client.get("/v1/whoami", headers=auth(key)).status_code == 401
        assert client.post("/_mock/snapshots/now/restore").status_code == 200
        assert "Format one" in _titles(client, "/v1/vaults", "name")
        mine = client.get("/v1/vaults", headers=auth(key)).json()["data"]
        assert [vault["name"] for vault in mine] == ["In its own sandbox"]
        audit = client.get("/v1/audit_logs", headers=auth(key)).json()["data"]
        assert audit[0]["at"] == "2030-01-01T00:00:00Z"  # on the account's own clock


def test_the_same_requests_give_the_same_file_as_the_checked_in_one() -> None:
    """Building the state again, in another process, gives this very file, but for the
    journal's measured durations."""
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app, headers={**AGENT, **auth()}) as client:
        _build_current(client)
        client.post("/_mock/snapshots", json={"name": "again"})
        data = client.get("/_mock/snapshots/again/download").content
    assert _timeless(data) == _timeless(CURRENT.read_bytes())


def test_a_file_of_a_later_format_is_refused() -> None:
    later = orjson.loads(FILE.read_bytes())
    later["format"] = FORMAT + 1
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app, headers=auth()) as client:
        attempt = client.post(
            "/_mock/snapshots/upload", params={"name": "new"}, content=orjson.dumps(later)
        )
        error = assert_envelope(attempt, 422, "validation_error")
        assert error["param"] == "file"
        assert f"format {FORMAT + 1}, from a later mockserver" in error["message"]


if __name__ == "__main__":
    write()
