"""An account sandbox's named snapshots on a durable server (`--state-dir`): they are in the
checkpoint a compaction writes, so they survive it, `kill -9` and a restart as the server's own
do, and after the restart they still count towards the server's limits."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson

from mockserver.engine.durable.state_dir import CHECKPOINT_MAGIC
from tests.support.durable import DurableServer
from tests.support.keys import auth

LOG_MAX = "0.000001"  # MiB: one byte, so every request is followed by a compaction


def _ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def _names(client: httpx.Client, base: str) -> list[str]:
    return [s["name"] for s in _ok(client.get(f"{base}/snapshots"))["data"]]


def test_an_accounts_snapshots_survive_compaction_and_kill_9(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = DurableServer(state, "--clock", "frozen", "--state-log-max", LOG_MAX)
    client = server.start()
    try:
        own = {"name": "Own", "clock": {"mode": "frozen", "start_time": "2030-01-01T00:00:00Z"}}
        made = _ok(client.post("/_mock/accounts", json=own), 201)
        follower = _ok(client.post("/_mock/accounts", json={"name": "Follower"}), 201)
        base = f"/_mock/accounts/{made['id']}"
        other = f"/_mock/accounts/{follower['id']}"
        url = f"http://127.0.0.1:{server.port}"
        with httpx.Client(base_url=url, headers=auth(made["keys"]["full"])) as mine:
            vault = _ok(mine.post("/v1/vaults", json={"name": "Kept", "region": "us"}), 201)
            _ok(client.post(f"{base}/snapshots", json={"name": "one-vault"}), 201)
            _ok(mine.post("/v1/vaults", json={"name": "Later", "region": "us"}), 201)
        _ok(client.post(f"{base}/snapshots", json={"name": "two-vaults"}), 201)
        _ok(client.post(f"{other}/snapshots", json={"name": "theirs"}), 201)
        _ok(client.post("/_mock/snapshots", json={"name": "server"}), 201)
        listed = _ok(client.get(f"{base}/snapshots"))
        download = client.get(f"{base}/snapshots/one-vault/download").content
        assert "checkpoint" in {p.name for p in state.iterdir()}
        server.kill()

        client = server.start()  # from the checkpoint: the log after it is empty
        assert _ok(client.get(f"{base}/snapshots")) == listed
        assert _names(client, other) == ["theirs"]
        assert _names(client, "/_mock") == ["server"]
        assert client.get(f"{base}/snapshots/one-vault/download").content == download
        _ok(client.post(f"{base}/snapshots/one-vault/restore"))
        url = f"http://127.0.0.1:{server.port}"
        with httpx.Client(base_url=url, headers=auth(made["keys"]["full"])) as mine:
            assert [v["id"] for v in _ok(mine.get("/v1/vaults"))["data"]] == [vault["id"]]
        _ok(client.delete(f"{other}/snapshots/theirs"))
        server.kill()

        client = server.start()  # a second time, from the checkpoint of the last request
        assert _names(client, base) == ["one-vault", "two-vaults"]
        assert _names(client, other) == []
    finally:
        server.stop()


def test_an_account_made_after_the_clock_moved_restarts_with_its_snapshots(
    tmp_path: Path,
) -> None:
    """An account on the server clock, made once the clock had moved: its sandbox is built
    again at another moment by a restart from the checkpoint (and by a restore of the server),
    and its named snapshots and downloaded files still load into it."""
    server = DurableServer(tmp_path / "state", "--clock", "frozen", "--state-log-max", LOG_MAX)
    client = server.start()
    try:
        _ok(client.post("/_mock/clock/advance", json={"seconds": 3600}))
        made = _ok(client.post("/_mock/accounts", json={"name": "Later"}), 201)
        base = f"/_mock/accounts/{made['id']}"
        url = f"http://127.0.0.1:{server.port}"
        with httpx.Client(base_url=url, headers=auth(made["keys"]["full"])) as mine:
            vault = _ok(mine.post("/v1/vaults", json={"name": "Kept", "region": "us"}), 201)
        _ok(client.post(f"{base}/snapshots", json={"name": "x"}), 201)
        _ok(client.post("/_mock/snapshots", json={"name": "server"}), 201)
        download = client.get(f"{base}/snapshots/x/download").content
        _ok(client.post("/_mock/clock/advance", json={"seconds": 3600}))
        server.kill()

        client = server.start()  # the account's sandbox is built again, at 09:00
        assert _names(client, base) == ["x"]
        _ok(client.post(f"{base}/snapshots/x/restore"))
        uploaded = client.post(f"{base}/snapshots/upload", params={"name": "y"}, content=download)
        assert uploaded.status_code == 201, uploaded.text
        _ok(client.post("/_mock/clock/advance", json={"seconds": 3600}))
        _ok(client.post("/_mock/snapshots/server/restore"))  # built again, at 12:00
        uploaded = client.post(f"{base}/snapshots/upload", params={"name": "z"}, content=download)
        assert uploaded.status_code == 201, uploaded.text
        _ok(client.post(f"{base}/snapshots/z/restore"))
        url = f"http://127.0.0.1:{server.port}"
        with httpx.Client(base_url=url, headers=auth(made["keys"]["full"])) as mine:
            assert [v["id"] for v in _ok(mine.get("/v1/vaults"))["data"]] == [vault["id"]]
        server.kill()
        client = server.start()
        assert _names(client, base) == ["z"]
    finally:
        server.stop()


def test_the_server_wide_limit_holds_across_a_restart(tmp_path: Path) -> None:
    """64 named snapshots between the server and an account, kept through a compaction and a
    restart: the 65th, anywhere, is 409; deleting the account frees its share."""
    server = DurableServer(tmp_path / "state", "--clock", "frozen", "--state-log-max", LOG_MAX)
    client = server.start()
    try:
        made = _ok(client.post("/_mock/accounts", json={"name": "Own"}), 201)
        base = f"/_mock/accounts/{made['id']}"
        for index in range(40):
            _ok(client.post("/_mock/snapshots", json={"name": f"s{index}"}), 201)
        for index in range(24):
            _ok(client.post(f"{base}/snapshots", json={"name": f"a{index}"}), 201)
        server.kill()

        client = server.start()
        assert len(_names(client, base)) == 24
        for where in ("/_mock", base):
            refused = client.post(f"{where}/snapshots", json={"name": "one-more"})
            assert refused.status_code == 409, refused.text
            assert "64 named snapshots" in refused.json()["error"]["message"]
        _ok(client.post(f"{base}/snapshots", json={"name": "a3"}), 201)  # replaced
        _ok(client.delete(base))
        _ok(client.post("/_mock/snapshots", json={"name": "one-more"}), 201)
    finally:
        server.stop()


def _rewrite_checkpoint(state: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Edit the JSON of DIR's checkpoint, keeping its head (the log generation) valid."""
    checkpoint = state / "checkpoint"
    head_size = len(CHECKPOINT_MAGIC) + 12  # the magic, the log generation, the CRC-32
    raw = checkpoint.read_bytes()
    parsed = orjson.loads(raw[head_size:])
    change(parsed)
    body = orjson.dumps(parsed)
    generation = raw[len(CHECKPOINT_MAGIC) : len(CHECKPOINT_MAGIC) + 8]
    checkpoint.write_bytes(
        CHECKPOINT_MAGIC + generation + zlib.crc32(body).to_bytes(4, "big") + body
    )


def _server_with_an_accounts_snapshot(state: Path) -> tuple[DurableServer, str]:
    server = DurableServer(state, "--clock", "frozen", "--state-log-max", LOG_MAX)
    client = server.start()
    made = _ok(client.post("/_mock/accounts", json={"name": "Own"}), 201)
    base = f"/_mock/accounts/{made['id']}"
    _ok(client.post(f"{base}/snapshots", json={"name": "mine"}), 201)
    _ok(client.post("/_mock/snapshots", json={"name": "server"}), 201)
    _ok(client.get("/_mock/clock"))  # a last request: its compaction holds both snapshots
    server.stop()
    return server, base


def test_a_checkpoint_without_account_snapshots_still_loads(tmp_path: Path) -> None:
    """A checkpoint as an earlier mockserver wrote it (the server's named snapshots only) starts."""
    state = tmp_path / "state"
    server, base = _server_with_an_accounts_snapshot(state)

    def as_written_before(checkpoint: dict[str, Any]) -> None:
        listed = checkpoint["snapshots"]
        assert [item.get("account") for item in listed] == [None, base.rsplit("/", 1)[1]]
        checkpoint["snapshots"] = [item for item in listed if "account" not in item]

    _rewrite_checkpoint(state, as_written_before)
    client = server.start()
    try:
        assert _names(client, "/_mock") == ["server"]
        assert _names(client, base) == []
        _ok(client.post(f"{base}/snapshots", json={"name": "again"}), 201)
    finally:
        server.stop()


def test_a_checkpoint_naming_an_account_it_does_not_hold_refuses_to_start(
    tmp_path: Path,
) -> None:
    """A checkpoint edited by hand: an account's snapshot listed under another account id (or
    one whose file is not that account's) is a clear refusal to start, exit status 2."""
    state = tmp_path / "state"
    server, base = _server_with_an_accounts_snapshot(state)

    def elsewhere(checkpoint: dict[str, Any]) -> None:
        checkpoint["snapshots"][1]["account"] = "acct_nowhere"

    _rewrite_checkpoint(state, elsewhere)
    result = server.run_to_exit()
    assert result.returncode == 2
    assert "of account 'acct_nowhere', which has no sandbox in it" in result.stderr

    def servers_file_as_the_accounts(checkpoint: dict[str, Any]) -> None:
        checkpoint["snapshots"][1]["account"] = base.rsplit("/", 1)[1]
        checkpoint["snapshots"][1]["file"] = checkpoint["snapshots"][0]["file"]

    _rewrite_checkpoint(state, servers_file_as_the_accounts)
    result = server.run_to_exit()
    assert result.returncode == 2
    assert "another seed" in result.stderr
