"""`mockserver run --state-dir DIR`: a restart rebuilds exactly the state that was answered,
one process per DIR, a torn last record is cut and damage in the middle refuses."""

from __future__ import annotations

import os
import re
import signal
import zlib
from pathlib import Path

import httpx
import pytest

from mockserver.engine.durable.state_dir import CHECKPOINT_MAGIC
from mockserver.engine.durable.wal import FRAME, MAGIC
from mockserver.testing.receiver import WebhookReceiver, closed_port
from tests.support.audit import all_events, verify
from tests.support.durable import DurableServer

WORKFLOW = "wf_mock_in_review"  # two steps: two approvals sign doc_mock_in_review
SIGNED = "doc_mock_in_review"


def _ok(response: httpx.Response, status: int = 200) -> httpx.Response:
    assert response.status_code == status, response.text
    return response


def _traffic(client: httpx.Client, receiver: WebhookReceiver) -> list[str]:
    """Writes of every kind, webhooks that fail and are retried, a clock move that locks a
    document; the GETs whose answers a restart must give again, byte for byte."""
    receiver.respond(500, 500, then=200)
    _ok(client.post("/v1/webhook_endpoints", json={"url": receiver.url, "events": ["*"]}), 201)
    refused = f"http://127.0.0.1:{closed_port()}/hooks"
    _ok(client.post("/v1/webhook_endpoints", json={"url": refused, "events": ["*"]}), 201)
    vault = _ok(client.post("/v1/vaults", json={"name": "Deals", "region": "us"}), 201).json()
    made = []
    for i in range(4):
        key = {"Idempotency-Key": f"doc-{i}"}
        body = {"title": f"Deal {i}", "vault_id": vault["id"], "metadata": {"n": i}}
        first = _ok(client.post("/v1/documents", json=body, headers=key), 201)
        again = _ok(client.post("/v1/documents", json=body, headers=key), 201)
        assert again.content == first.content
        made.append(first.json()["id"])
    _ok(client.post("/v1/documents", json={"title": "no vault"}), 422)
    _ok(client.delete(f"/v1/documents/{made[0]}"))
    for _ in range(2):
        _ok(client.post(f"/v1/workflows/{WORKFLOW}/advance", json={"decision": "approve"}))
    assert client.get(f"/v1/documents/{SIGNED}").json()["status"] == "signed"
    _ok(client.post("/_mock/webhooks/wait"))  # the first attempts, made in the background
    moved = _ok(client.post("/_mock/clock/advance", json={"seconds": 2 * 86400})).json()
    assert moved["timers_run"] > 0
    assert client.get(f"/v1/documents/{SIGNED}").json()["status"] == "locked"
    return [
        f"/v1/documents/{SIGNED}",
        f"/v1/documents/{made[1]}",
        f"/v1/documents/{made[0]}",
        "/v1/documents?limit=100",
        f"/v1/vaults/{vault['id']}",
        f"/v1/workflows/{WORKFLOW}",
        "/v1/audit_logs?limit=100",
        "/v1/webhook_endpoints",
        "/_mock/webhooks/deliveries",
    ]


def _answers(client: httpx.Client, paths: list[str]) -> dict[str, tuple[int, bytes]]:
    """Each GET's status and body; an error's body without its request id (which is new)."""
    answers = {}
    for path in paths:
        response = client.get(path)
        body = response.content
        if response.status_code >= 400:
            body = re.sub(rb'"request_id":"req_\w+"', b"", body)
        answers[path] = (response.status_code, body)
    return answers


def test_a_restart_answers_every_get_byte_for_byte(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state")
    with WebhookReceiver() as receiver:
        client = server.start()
        paths = _traffic(client, receiver)
        before = _answers(client, paths)
        deliveries = client.get("/_mock/webhooks/deliveries").json()["data"]
        attempts = [a for d in deliveries for a in d["attempts"]]
        assert any(a["status_code"] == 500 for a in attempts)  # failed, retried by the move
        assert any(a["status_code"] is None for a in attempts)  # connection refused
        assert any(a["status_code"] == 200 for a in attempts)
        sent = len(receiver.received)
        server.stop()  # a clean stop
        client = server.start()
        assert _answers(client, paths) == before
        server.kill()  # and a crash
        client = server.start()
        assert _answers(client, paths) == before
        assert len(receiver.received) == sent  # replayed outcomes: nothing was sent again
        verify(all_events(client))
        new = _ok(client.post("/v1/vaults", json={"name": "Next", "region": "us"}), 201).json()
        assert new["id"] not in str(before)
        server.stop()


def test_a_second_process_on_the_same_directory_exits_2(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    server.start()
    try:
        refused = DurableServer(tmp_path / "state", "--clock", "frozen").run_to_exit()
        assert refused.returncode == 2
        assert "another mockserver process" in refused.stderr
        assert str(tmp_path / "state") in refused.stderr
        assert "listening" not in refused.stdout
    finally:
        server.kill()
    server.start()  # the kernel released the killed process's lock: no stale lock
    server.stop()


def test_other_settings_on_the_same_directory_exit_2(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    server.start()
    server.stop()
    refused = DurableServer(tmp_path / "state", "--clock", "frozen", "--random-seed", "5")
    result = refused.run_to_exit()
    assert result.returncode == 2
    assert "random_seed" in result.stderr
    assert "other settings" in result.stderr


def _doc(client: httpx.Client, title: str) -> str:
    body = {"title": title, "vault_id": "vault_mock_us"}
    doc_id: str = _ok(client.post("/v1/documents", json=body), 201).json()["id"]
    return doc_id


def test_a_torn_last_record_is_cut_and_the_rest_kept(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    kept = _doc(client, "kept")
    server.kill()
    log = tmp_path / "state" / "log.0"
    with log.open("ab") as file:  # half a record: a crash in the middle of an append
        file.write(FRAME.pack(500, 0) + b"R" * 100)
    client = server.start()
    _ok(client.get(f"/v1/documents/{kept}"))
    after = _doc(client, "after")
    server.kill()
    client = server.start()
    _ok(client.get(f"/v1/documents/{kept}"))
    _ok(client.get(f"/v1/documents/{after}"))
    server.stop()


def test_a_damaged_record_in_the_middle_refuses_to_start(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    for title in ("a", "b", "c"):
        _doc(client, title)
    server.kill()
    log = tmp_path / "state" / "log.0"
    data = bytearray(log.read_bytes())
    first = len(MAGIC)
    second = first + FRAME.size + FRAME.unpack_from(data, first)[0]  # the first request's
    data[second + FRAME.size + 12] ^= 0x20
    log.write_bytes(bytes(data))
    result = server.run_to_exit()
    assert result.returncode == 2
    assert "the command log is damaged" in result.stderr
    assert "record 2" in result.stderr


@pytest.mark.parametrize("clock", ["frozen", "real"])
def test_the_clock_continues_after_a_restart(tmp_path: Path, clock: str) -> None:
    server = DurableServer(tmp_path / "state", "--clock", clock)
    client = server.start()
    _ok(client.post("/_mock/clock/advance", json={"seconds": 3 * 86400}))
    moved = _ok(client.get("/_mock/clock")).json()["now"]
    server.kill()
    client = server.start()
    now = _ok(client.get("/_mock/clock")).json()["now"]
    assert now >= moved  # real: later by the time the restart took; frozen: the same
    if clock == "frozen":
        assert now == moved
    server.stop()


def test_a_compacted_directory_restarts_to_the_same_state(tmp_path: Path) -> None:
    """A small --state-log-max: the state is checkpointed (named snapshots with it) and logs
    start again, more than once; a restart loads the checkpoint and replays the log after it."""
    state = tmp_path / "state"
    server = DurableServer(state, "--state-log-max", "0.01")
    with WebhookReceiver() as receiver:
        client = server.start()
        _ok(client.post("/_mock/snapshots", json={"name": "before"}), 201)
        paths = _traffic(client, receiver)
        for i in range(40):
            _doc(client, f"filler {i}")
        paths.append("/_mock/snapshots")
        _ok(client.post("/_mock/webhooks/wait"))
        before = _answers(client, paths)
        names = sorted(p.name for p in state.iterdir())
        assert "checkpoint" in names
        assert any(n.startswith("log.") and n != "log.0" for n in names)
        assert b'"before"' in before["/_mock/snapshots"][1]
        sent = len(receiver.received)
        server.kill()
        client = server.start()
        assert _answers(client, paths) == before
        assert len(receiver.received) == sent
        after = _doc(client, "after the restart")
        assert after not in str(before)
        _ok(client.post("/_mock/snapshots/before/restore"))  # a named snapshot came back too
        _ok(client.get(f"/v1/documents/{after}"), 404)
        server.stop()


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


def test_a_log_that_cannot_be_kept_answers_500_and_keeps_what_was_answered(
    tmp_path: Path,
) -> None:
    """The process that syncs the log dies: the server answers nothing more, since it cannot
    keep it (a 500 envelope that says why), and a restart has every write answered before."""
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    kept = _doc(client, "kept")
    assert server.process is not None
    helpers = _children(server.process.pid)
    assert len(helpers) == 1  # the sync helper, started by the first request
    os.kill(helpers[0], signal.SIGKILL)
    for _ in range(2):
        refused = client.post("/v1/documents", json={"title": "lost", "vault_id": "vault_mock_us"})
        assert refused.status_code == 500
        error = refused.json()["error"]
        assert error["type"] == "api_error"
        assert "state directory cannot be written" in error["message"]
    assert client.get(f"/v1/documents/{kept}").status_code == 500  # reads run nothing either
    assert server.stderr().count("cannot be written") == 1  # said once, not per request
    server.kill()
    client = server.start()  # (a refused write may or may not be in the log: none was answered)
    _ok(client.get(f"/v1/documents/{kept}"))
    _doc(client, "after the restart")
    verify(all_events(client))
    server.stop()


def test_a_checkpoint_of_the_pickle_era_is_refused_unread(tmp_path: Path) -> None:
    """A state directory whose checkpoint an earlier mockserver wrote as a pickle: the server
    says so and exits 2, having read nothing of it (nothing it names is ever built)."""
    state = tmp_path / "state"
    server = DurableServer(state, "--state-log-max", "0.01")
    client = server.start()
    for i in range(40):
        _doc(client, f"filler {i}")
    server.stop()
    checkpoint = state / "checkpoint"
    head_size = len(CHECKPOINT_MAGIC) + 12  # the magic, the log generation, the CRC-32
    head = checkpoint.read_bytes()[:head_size]
    generation = int.from_bytes(head[len(CHECKPOINT_MAGIC) : len(CHECKPOINT_MAGIC) + 8], "big")
    old = b'MOCKSNAP\n{"format": 1}\n\x80\x05crandom\nRandom\n.'
    checkpoint.write_bytes(
        CHECKPOINT_MAGIC + generation.to_bytes(8, "big") + zlib.crc32(old).to_bytes(4, "big") + old
    )
    result = server.run_to_exit()
    assert result.returncode == 2
    assert "earlier mockserver" in result.stderr
    assert "listening" not in result.stdout
