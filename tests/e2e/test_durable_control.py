"""Control-plane actions on a durable sandbox (`--state-dir`): a trigger, which makes requests
to the sandbox from inside a request, answers and leaves the server answering; and what every
control action did is there again after `kill -9` and a restart, audit chains intact."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.testing.receiver import closed_port
from tests.support.audit import all_events, verify
from tests.support.cli import MOCKSERVER
from tests.support.durable import DurableServer
from tests.support.keys import auth

SCENARIO = """\
name: durable_rules
rules:
  - name: teapot
    match: {method: GET, path: /v1/vaults/vault_teapot}
    respond: {status: 418, body: {teapot: true}}
"""


# Longer than any request here takes, shorter than the hold a trigger used to cause (a minute).
HELD = 30.0


def _ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def test_a_trigger_answers_and_the_server_keeps_answering(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    try:
        url = f"http://127.0.0.1:{server.port}"
        before = [e for e in all_events(client) if e["type"] == "document.signed"]
        # A deadlock must fail the test (the timeout raises), not hang the suite.
        done = subprocess.run(
            [*MOCKSERVER, "trigger", "document.signed", "--url", url],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert "document.signed" in done.stdout
        assert _ok(client.get("/v1/whoami"))["account_id"]
        signed = [e for e in all_events(client) if e["type"] == "document.signed"]
        assert len(signed) == len(before) + 1
    finally:
        server.stop()


def test_a_trigger_that_moves_the_clock_does_not_hold_the_server(tmp_path: Path) -> None:
    """`document.locked` moves the clock, which awaits the webhook attempts of the writes the
    recipe made before: on a durable sandbox those attempts go out once the trigger's own
    record is on disk, and their outcomes are logged inside it. The trigger answers, other
    requests are answered meanwhile, and a restart replays it without waiting on anything."""
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    try:
        hook = {"url": f"http://127.0.0.1:{closed_port()}/hook", "events": ["*"]}
        _ok(client.post("/v1/webhook_endpoints", json=hook), 201)
        answered: list[int] = []
        with ThreadPoolExecutor(1) as pool:
            trigger = pool.submit(
                client.post,
                "/_mock/events/trigger",
                json={"type": "document.locked"},
                timeout=HELD,
            )
            while not trigger.done():
                answered.append(client.get("/v1/whoami", timeout=HELD).status_code)
            triggered = _ok(trigger.result())
        assert answered, "no request was answered while the trigger ran"
        assert set(answered) == {200}
        document = triggered["objects"]["document"]
        assert _ok(client.get(f"/v1/documents/{document}"))["status"] == "locked"
        server.kill()

        client = server.start()
        assert _ok(client.get(f"/v1/documents/{document}", timeout=HELD))["status"] == "locked"
        locked = [e for e in all_events(client) if e["type"] == "document.locked"]
        assert document in {event["resource_id"] for event in locked}
    finally:
        server.stop()


def test_every_control_action_survives_kill_9(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    made = _ok(client.post("/_mock/accounts", json={"region": "eu", "name": "Kept"}), 201)
    _ok(client.post("/_mock/documents/doc_mock_draft/legal_hold", json={"on": True}))
    _ok(client.post("/_mock/scenarios", json={"yaml": SCENARIO, "source": "kept.yaml"}), 201)
    triggered = _ok(client.post("/_mock/events/trigger", json={"type": "vault.created"}))
    _ok(client.post("/_mock/clock/advance", json={"seconds": 3600}))
    _ok(client.post("/_mock/snapshots", json={"name": "before"}), 201)
    vault = _ok(client.post("/v1/vaults", json={"name": "After", "region": "us"}), 201)
    _ok(client.post("/_mock/snapshots/before/restore"))
    clock = _ok(client.get("/_mock/clock"))
    server.kill()

    client = server.start()
    try:
        mine = httpx.Client(
            base_url=f"http://127.0.0.1:{server.port}", headers=auth(made["keys"]["full"])
        )
        with mine:
            assert _ok(mine.get("/v1/whoami"))["account_id"] == made["id"]
        assert _ok(client.get("/v1/documents/doc_mock_draft"))["legal_hold"] is True
        teapot = client.get("/v1/vaults/vault_teapot")
        assert teapot.status_code == 418
        assert teapot.json() == {"teapot": True}
        loaded = _ok(client.get("/_mock/scenarios"))["data"]
        assert [s["name"] for s in loaded] == ["durable_rules"]
        assert _ok(client.get(f"/v1/vaults/{triggered['objects']['vault']}"))["name"]
        assert client.get(f"/v1/vaults/{vault['id']}").status_code == 404  # restored away
        assert [s["name"] for s in _ok(client.get("/_mock/snapshots"))["data"]] == ["before"]
        assert _ok(client.get("/_mock/clock")) == clock
        verify(all_events(client))
        with httpx.Client(
            base_url=f"http://127.0.0.1:{server.port}", headers=auth(made["keys"]["full"])
        ) as mine:
            verify(all_events(mine))
    finally:
        server.stop()


def test_a_call_from_a_web_page_stays_refused_after_a_restart(tmp_path: Path) -> None:
    """The browser guard's refusal is an input like any other: logged, and refused again when
    the log is replayed, so the vault made before it is still there after `kill -9`."""
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    vault = _ok(client.post("/v1/vaults", json={"name": "Kept", "region": "us"}), 201)
    page = {"Origin": "https://evil.example", "Content-Type": "text/plain"}
    refused = client.post("/_mock/reset", headers=page, content=b"{}")
    assert refused.status_code == 403, refused.text
    server.kill()

    client = server.start()
    try:
        assert _ok(client.get(f"/v1/vaults/{vault['id']}"))["name"] == "Kept"
    finally:
        server.stop()


def test_account_sandboxes_survive_kill_9(tmp_path: Path) -> None:
    """Accounts with a clock of their own, their data, clock moves, scenarios and snapshots are
    there again after `kill -9` and a restart, on a server with a real clock."""
    server = DurableServer(tmp_path / "state")
    client = server.start()
    own = {"name": "Own", "clock": {"mode": "frozen", "start_time": "2030-01-01T00:00:00Z"}}
    made = _ok(client.post("/_mock/accounts", json=own), 201)
    follower = _ok(client.post("/_mock/accounts", json={"name": "Follower"}), 201)
    base = f"/_mock/accounts/{made['id']}"
    url = f"http://127.0.0.1:{server.port}"
    with httpx.Client(base_url=url, headers=auth(made["keys"]["full"])) as mine:
        vault = _ok(mine.post("/v1/vaults", json={"name": "Own vault", "region": "us"}), 201)
        _ok(client.post(f"{base}/snapshots", json={"name": "one-vault"}), 201)
        _ok(mine.post("/v1/vaults", json={"name": "Second", "region": "us"}), 201)
        _ok(client.post(f"{base}/clock/advance", json={"seconds": 90}))
        _ok(client.post(f"{base}/scenarios", json={"yaml": SCENARIO}), 201)
    with httpx.Client(base_url=url, headers=auth(follower["keys"]["full"])) as theirs:
        _ok(theirs.post("/v1/vaults", json={"name": "Theirs", "region": "us"}), 201)
    server.kill()

    client = server.start()
    try:
        url = f"http://127.0.0.1:{server.port}"
        with httpx.Client(base_url=url, headers=auth(made["keys"]["full"])) as mine:
            names = [v["name"] for v in _ok(mine.get("/v1/vaults"))["data"]]
            assert sorted(names) == ["Own vault", "Second"]
            assert mine.get("/v1/vaults/vault_teapot").status_code == 418
            assert _ok(client.get(base))["clock"]["now"] == "2030-01-01T00:01:30Z"
            _ok(client.post(f"{base}/snapshots/one-vault/restore"))
            assert [v["id"] for v in _ok(mine.get("/v1/vaults"))["data"]] == [vault["id"]]
            verify(all_events(mine))
        with httpx.Client(base_url=url, headers=auth(follower["keys"]["full"])) as theirs:
            assert [v["name"] for v in _ok(theirs.get("/v1/vaults"))["data"]] == ["Theirs"]
    finally:
        server.stop()


def test_an_accounts_webhook_attempts_are_kept_and_not_sent_again(tmp_path: Path) -> None:
    from mockserver.testing.receiver import WebhookReceiver

    server = DurableServer(tmp_path / "state")
    client = server.start()
    own = {"name": "Hooks", "clock": {"mode": "frozen"}}
    made = _ok(client.post("/_mock/accounts", json=own), 201)
    base = f"/_mock/accounts/{made['id']}"
    with WebhookReceiver() as receiver:
        url = f"http://127.0.0.1:{server.port}"
        with httpx.Client(base_url=url, headers=auth(made["keys"]["full"])) as mine:
            hook = {"url": receiver.url, "events": ["vault.created"]}
            _ok(mine.post("/v1/webhook_endpoints", json=hook), 201)
            _ok(mine.post("/v1/vaults", json={"name": "V", "region": "us"}), 201)
        _ok(client.post(f"{base}/webhooks/wait"))
        before = _ok(client.get(f"{base}/webhooks/deliveries"))["data"]
        assert [d["status"] for d in before] == ["succeeded"]
        server.kill()

        client = server.start()
        try:
            after = _ok(client.get(f"{base}/webhooks/deliveries"))["data"]
            assert after == before
            _ok(client.post(f"{base}/webhooks/wait"))
            assert len(receiver.received) == 1  # the replay took the logged outcome
        finally:
            server.stop()


LOST = """\
name: lost_answer
rules:
  - name: lost-create
    match: {method: POST, path: /v1/documents, times: 1}
    respond: {fault: drop_after_commit}
"""


def test_a_lost_answer_survives_kill_9_and_the_keyed_retry_replays_it(tmp_path: Path) -> None:
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    _ok(client.post("/_mock/scenarios", json={"yaml": LOST, "source": "lost.yaml"}), 201)
    body = {"title": "Committed, unheard", "vault_id": "vault_mock_us"}
    key = {"Idempotency-Key": "durable-lost-1"}
    with pytest.raises(httpx.RemoteProtocolError):  # the answer is lost
        client.post("/v1/documents", json=body, headers=key)
    server.kill()

    client = server.start()
    try:
        retry = client.post("/v1/documents", json=body, headers=key)
        assert retry.status_code == 201, retry.text
        assert retry.headers["idempotent-replayed"] == "true"
        listed = _ok(client.get("/v1/documents", params={"vault_id": "vault_mock_us"}))
        assert [d["id"] for d in listed["data"] if d["title"] == body["title"]] == [
            retry.json()["id"]
        ]
    finally:
        server.stop()
