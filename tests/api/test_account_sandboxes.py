"""Accounts with a sandbox of their own (`POST /_mock/accounts`): own clocks, reset, snapshots,
scenarios, journal and removal per account, and named accounts whose answers depend on nothing
else the server does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth

FROZEN = Settings(clock_mode="frozen")
START = "2030-01-01T00:00:00Z"
A, B = "ann@example.com", "bo@example.com"


@pytest.fixture
def mock() -> Iterator[httpx.Client]:
    """A fresh server on a frozen clock, in-process, with no credential."""
    with inprocess_client(create_app(FROZEN)) as client:
        yield client


def account(client: httpx.Client, **body: Any) -> dict[str, Any]:
    made = client.post("/_mock/accounts", json=body)
    assert made.status_code == 201, made.text
    result: dict[str, Any] = made.json()
    return result


def own(client: httpx.Client, name: str, start: str = START) -> dict[str, Any]:
    return account(client, name=name, clock={"mode": "frozen", "start_time": start})


def key_of(made: dict[str, Any]) -> dict[str, str]:
    return auth(made["keys"]["full"])


def signed_document(client: httpx.Client, headers: dict[str, str]) -> str:
    """A document of a new vault, signed through a one-step workflow."""
    vault = client.post("/v1/vaults", json={"name": "v", "region": "us"}, headers=headers).json()
    doc = client.post(
        "/v1/documents", json={"title": "NDA", "vault_id": vault["id"]}, headers=headers
    ).json()
    flow = client.post(
        "/v1/workflows",
        json={"document_id": doc["id"], "steps": [{"assignee": A}]},
        headers=headers,
    ).json()
    done = client.post(
        f"/v1/workflows/{flow['id']}/advance", json={"decision": "approve"}, headers=headers
    )
    assert done.json()["status"] == "completed", done.text
    return str(doc["id"])


def status(client: httpx.Client, doc_id: str, headers: dict[str, str]) -> str:
    return str(client.get(f"/v1/documents/{doc_id}", headers=headers).json()["status"])


def server_now(client: httpx.Client) -> str:
    return str(client.get("/_mock/clock").json()["now"])


# -- clocks ---------------------------------------------------------------------------------


def test_each_own_clock_moves_its_account_alone(mock: httpx.Client) -> None:
    first, second = own(mock, "first"), own(mock, "second")
    assert first["clock"] == {"now": START, "mode": "frozen", "own": True}
    doc1 = signed_document(mock, key_of(first))
    doc2 = signed_document(mock, key_of(second))
    before = server_now(mock)

    moved = mock.post(f"/_mock/accounts/{first['id']}/clock/advance", json={"seconds": 301})
    assert moved.status_code == 200, moved.text
    assert moved.json()["now"] == "2030-01-01T00:05:01Z"
    assert moved.json()["timers_run"] >= 1
    assert status(mock, doc1, key_of(first)) == "locked"
    assert status(mock, doc2, key_of(second)) == "signed"
    assert server_now(mock) == before  # the server clock did not move

    assert mock.post("/_mock/clock/advance", json={"seconds": 3600}).status_code == 200
    assert status(mock, doc2, key_of(second)) == "signed"  # nor does the server clock move it
    assert mock.get(f"/_mock/accounts/{second['id']}").json()["clock"]["now"] == START
    assert mock.get(f"/_mock/accounts/{first['id']}/clock").json()["now"] == "2030-01-01T00:05:01Z"

    set_to = mock.post(
        f"/_mock/accounts/{second['id']}/clock/set", json={"at": "2030-02-01T00:00:00Z"}
    )
    assert set_to.json()["now"] == "2030-02-01T00:00:00Z"
    assert status(mock, doc2, key_of(second)) == "locked"
    # The lock happened at its due time, on the account's clock.
    audit = mock.get("/v1/audit_logs", headers=key_of(second)).json()["data"]
    assert [e["at"] for e in audit if e["type"] == "document.locked"] == ["2030-01-01T00:05:00Z"]


def test_an_account_on_the_server_clock_follows_it(mock: httpx.Client) -> None:
    follower = account(mock, name="follower")
    assert follower["clock"]["own"] is False
    assert follower["clock"]["now"] == server_now(mock)
    doc = signed_document(mock, key_of(follower))
    refused = mock.post(f"/_mock/accounts/{follower['id']}/clock/advance", json={"seconds": 400})
    assert assert_envelope(refused, 409, "conflict")["param"] == "account"
    assert status(mock, doc, key_of(follower)) == "signed"
    assert mock.post("/_mock/clock/advance", json={"seconds": 400}).json()["timers_run"] >= 1
    assert status(mock, doc, key_of(follower)) == "locked"


def test_an_accounts_rate_window_recovers_on_its_own_clock(mock: httpx.Client) -> None:
    made = own(mock, "busy")
    headers = key_of(made)
    statuses = [mock.get("/v1/whoami", headers=headers).status_code for _ in range(260)]
    assert statuses[-1] == 429
    assert mock.post("/_mock/clock/advance", json={"seconds": 120}).status_code == 200
    assert mock.get("/v1/whoami", headers=headers).status_code == 429  # not the server's clock
    mock.post(f"/_mock/accounts/{made['id']}/clock/advance", json={"seconds": 61})
    assert mock.get("/v1/whoami", headers=headers).status_code == 200


# -- reset, snapshots, removal -------------------------------------------------------------


def titles(client: httpx.Client, headers: dict[str, str]) -> list[str]:
    return [d["title"] for d in client.get("/v1/documents", headers=headers).json()["data"]]


def new_doc(client: httpx.Client, headers: dict[str, str], title: str) -> None:
    vaults = client.get("/v1/vaults", headers=headers).json()["data"]
    if not vaults:
        vaults = [
            client.post("/v1/vaults", json={"name": "v", "region": "us"}, headers=headers).json()
        ]
    made = client.post(
        "/v1/documents", json={"title": title, "vault_id": vaults[0]["id"]}, headers=headers
    )
    assert made.status_code == 201, made.text


def test_reset_and_restore_bring_one_account_back(mock: httpx.Client) -> None:
    one, other = own(mock, "one"), account(mock, name="other")
    mine, theirs = key_of(one), key_of(other)
    new_doc(mock, mine, "kept")
    base = f"/_mock/accounts/{one['id']}"
    assert mock.post(f"{base}/snapshots", json={"name": "kept"}).status_code == 201
    new_doc(mock, mine, "later")
    new_doc(mock, theirs, "theirs")
    mock.post(f"{base}/clock/advance", json={"seconds": 10})

    restored = mock.post(f"{base}/snapshots/kept/restore")
    assert restored.status_code == 200, restored.text
    assert restored.json()["now"] == START
    assert titles(mock, mine) == ["kept"]
    assert titles(mock, theirs) == ["theirs"]
    assert [s["name"] for s in mock.get(f"{base}/snapshots").json()["data"]] == ["kept"]
    assert mock.get("/_mock/snapshots").json()["data"] == []  # the server's are apart

    new_doc(mock, theirs, "theirs too")
    reset = mock.post(f"{base}/reset")
    assert reset.status_code == 200
    assert reset.json()["now"] == START
    assert titles(mock, mine) == []
    assert mock.get("/v1/whoami", headers=mine).status_code == 200  # its keys stay
    assert titles(mock, theirs) == ["theirs too", "theirs"]


def test_an_account_snapshot_downloaded_and_uploaded_restores_the_same_state(
    mock: httpx.Client,
) -> None:
    one = own(mock, "moving")
    mine, base = key_of(one), f"/_mock/accounts/{one['id']}"
    new_doc(mock, mine, "in the file")
    mock.post(f"{base}/snapshots", json={"name": "s"})
    data = mock.get(f"{base}/snapshots/s/download").content
    before = mock.get("/v1/documents", headers=mine).content
    mock.post(f"{base}/reset")
    uploaded = mock.post(f"{base}/snapshots/upload", params={"name": "back"}, content=data)
    assert uploaded.status_code == 201, uploaded.text
    assert mock.post(f"{base}/snapshots/back/restore").status_code == 200
    assert mock.get("/v1/documents", headers=mine).content == before
    # Another account's snapshot is not this one's.
    other = own(mock, "other")
    refused = mock.post(
        f"/_mock/accounts/{other['id']}/snapshots/upload", params={"name": "x"}, content=data
    )
    assert assert_envelope(refused, 422, "validation_error")["param"] == "file"


def test_an_accounts_file_loads_after_a_server_restore_built_its_sandbox_again(
    mock: httpx.Client,
) -> None:
    """An account on the server clock, made once it had moved: a restore of the server builds
    its sandbox again at another moment, and the account's file still restores into it."""
    mock.post("/_mock/clock/advance", json={"seconds": 3600})
    one = account(mock, name="follower")
    mine, base = key_of(one), f"/_mock/accounts/{one['id']}"
    mock.post("/_mock/snapshots", json={"name": "all"})
    new_doc(mock, mine, "in the file")
    mock.post(f"{base}/snapshots", json={"name": "s"})
    data = mock.get(f"{base}/snapshots/s/download").content
    before = mock.get("/v1/documents", headers=mine).content
    mock.post("/_mock/clock/advance", json={"seconds": 7200})
    assert mock.post("/_mock/snapshots/all/restore").status_code == 200
    uploaded = mock.post(f"{base}/snapshots/upload", params={"name": "back"}, content=data)
    assert uploaded.status_code == 201, uploaded.text
    assert mock.post(f"{base}/snapshots/back/restore").status_code == 200
    assert mock.get("/v1/documents", headers=mine).content == before


def test_the_server_snapshot_holds_the_account_sandboxes(mock: httpx.Client) -> None:
    one = own(mock, "held")
    new_doc(mock, key_of(one), "before")
    mock.post("/_mock/snapshots", json={"name": "all"})
    new_doc(mock, key_of(one), "after")
    mock.post(f"/_mock/accounts/{one['id']}/clock/advance", json={"seconds": 5})
    assert mock.post("/_mock/snapshots/all/restore").status_code == 200
    assert titles(mock, key_of(one)) == ["before"]
    assert mock.get(f"/_mock/accounts/{one['id']}").json()["clock"]["now"] == START
    mock.post("/_mock/reset")
    assert mock.get("/v1/whoami", headers=key_of(one)).status_code == 401
    assert mock.post("/_mock/snapshots/all/restore").status_code == 200
    assert titles(mock, key_of(one)) == ["before"]


def test_delete_removes_an_account_and_its_journal(mock: httpx.Client) -> None:
    gone = own(mock, "gone")
    mock.get("/v1/whoami", headers=key_of(gone))
    assert mock.get("/_mock/requests", params={"account": gone["id"]}).json()["data"]
    deleted = mock.delete(f"/_mock/accounts/{gone['id']}")
    assert deleted.json() == {"id": gone["id"], "object": "account", "deleted": True}
    assert_envelope(mock.get("/v1/whoami", headers=key_of(gone)), 401, "authentication_error")
    assert not mock.get("/_mock/requests", params={"account": gone["id"]}).json()["data"]
    assert_envelope(mock.get(f"/_mock/accounts/{gone['id']}"), 404, "not_found")
    assert_envelope(mock.delete(f"/_mock/accounts/{gone['id']}"), 404, "not_found")
    assert_envelope(mock.delete("/_mock/accounts/acct_mock_us"), 409, "conflict")
    seeded = mock.get("/_mock/accounts/acct_mock_us").json()
    assert seeded["clock"]["own"] is False
    assert "keys" not in seeded
    assert own(mock, "gone")["id"] == gone["id"]  # the name is free again, the same account


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"clock": {"mode": "slow"}}, "clock.mode"),
        ({"clock": {}}, "clock.mode"),
        ({"clock": "frozen"}, "clock"),
        ({"clock": {"mode": "frozen", "start_time": "soon"}}, "clock.start_time"),
        ({"clock": {"mode": "frozen", "speed": 2}}, "clock.speed"),
    ],
)
def test_bad_clocks_are_422(mock: httpx.Client, body: dict[str, Any], param: str) -> None:
    assert_envelope(mock.post("/_mock/accounts", json=body), 422, "validation_error")
    assert mock.post("/_mock/accounts", json=body).json()["error"]["param"] == param
    assert mock.get("/_mock/accounts").json()["data"] == []


def test_a_name_in_use_is_409(mock: httpx.Client) -> None:
    own(mock, "taken")
    assert_envelope(mock.post("/_mock/accounts", json={"name": "taken"}), 409, "conflict")
    assert_envelope(mock.post("/_mock/accounts/acct_nope/reset"), 404, "not_found")


# -- scenarios and the journal -------------------------------------------------------------

OUTAGE = """
name: account-outage
rules:
  - name: documents-down
    match: {method: GET, path: /v1/documents}
    respond: {status: 503, body: {error: {type: api_error, message: down}}}
"""


def test_a_scenario_of_one_account_answers_only_there(mock: httpx.Client) -> None:
    one, other = own(mock, "faulty"), own(mock, "healthy")
    base = f"/_mock/accounts/{one['id']}"
    loaded = mock.post(f"{base}/scenarios", json={"yaml": OUTAGE})
    assert loaded.status_code == 201, loaded.text
    assert mock.get("/v1/documents", headers=key_of(one)).status_code == 503
    assert mock.get("/v1/documents", headers=key_of(other)).status_code == 200
    assert mock.get("/v1/documents", headers=auth()).status_code == 200
    assert mock.get("/_mock/scenarios").json()["data"] == []
    assert [s["name"] for s in mock.get(f"{base}/scenarios").json()["data"]] == ["account-outage"]

    journal = mock.get("/_mock/requests", params={"account": one["id"]}).json()["data"]
    assert [(e["path"], e["status"], e["account"]) for e in journal] == [
        ("/v1/documents", 503, one["id"])
    ]
    scoped = mock.get(f"{base}/requests").json()["data"]
    assert [e["seq"] for e in scoped] == [e["seq"] for e in journal]
    everything = mock.get("/_mock/requests").json()["data"]
    assert {e["account"] for e in everything} == {one["id"], other["id"], None}

    matcher = {"method": "GET", "path": "/v1/documents", "account": one["id"]}
    verified = mock.post("/_mock/requests/verify", json={**matcher, "count": 1})
    assert verified.json()["ok"] is True, verified.text
    assert mock.post(f"{base}/requests/verify", json={**matcher, "count": 1}).json()["ok"]
    other_only = {"method": "GET", "path": "/v1/documents", "account": other["id"], "count": 1}
    assert mock.post("/_mock/requests/verify", json=other_only).json()["ok"] is True
    all_of_them = {"method": "GET", "path": "/v1/documents", "count": 3}
    assert mock.post("/_mock/requests/verify", json=all_of_them).json()["ok"] is True
    assert mock.delete(f"{base}/scenarios").json() == {"unloaded": 1}
    assert mock.get("/v1/documents", headers=key_of(one)).status_code == 200


def test_a_server_scenario_applies_to_every_account(mock: httpx.Client) -> None:
    one = account(mock, name="on the server")
    assert mock.post("/_mock/scenarios", json={"yaml": OUTAGE}).status_code == 201
    assert mock.get("/v1/documents", headers=key_of(one)).status_code == 503


def test_an_account_on_the_server_clock_cannot_load_a_clock_scenario(mock: httpx.Client) -> None:
    follower = account(mock, name="follower")
    moving = "name: moving\nclock: {advance: 60}\n"
    refused = mock.post(f"/_mock/accounts/{follower['id']}/scenarios", json={"yaml": moving})
    assert_envelope(refused, 409, "conflict")
    mine = own(mock, "mine")
    loaded = mock.post(f"/_mock/accounts/{mine['id']}/scenarios", json={"yaml": moving})
    assert loaded.status_code == 201, loaded.text
    assert mock.get(f"/_mock/accounts/{mine['id']}/clock").json()["now"] == "2030-01-01T00:01:00Z"


# -- reproducible named accounts -----------------------------------------------------------

HEADERS = (
    "content-type",
    "content-length",
    "x-request-id",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "idempotent-replayed",
    "date",
    "location",
)


def flow(client: httpx.Client) -> list[tuple[int, tuple[str | None, ...], bytes]]:
    """A fixed flow of one named account: vault, idempotent creates, workflows, approvals,
    lists, audit, errors; every answer as (status, headers that matter, body)."""
    made = client.post("/_mock/accounts", json={"name": "golden", "clock": {"mode": "frozen"}})
    # The control plane's answer: its body (id, keys, clock); its request id is the server's.
    answers = [httpx.Response(made.status_code, content=made.content)]
    headers = key_of(made.json())
    vault = client.post("/v1/vaults", json={"name": "Golden", "region": "us"}, headers=headers)
    answers.append(vault)
    body = {"title": "Contract", "vault_id": vault.json()["id"], "metadata": {"n": "1"}}
    keyed = {**headers, "Idempotency-Key": "golden-1"}
    doc = client.post("/v1/documents", json=body, headers=keyed)
    answers += [doc, client.post("/v1/documents", json=body, headers=keyed)]
    steps = {"document_id": doc.json()["id"], "steps": [{"assignee": A}, {"assignee": B}]}
    wf = client.post("/v1/workflows", json=steps, headers=headers)
    answers.append(wf)
    for _ in range(2):
        answers.append(
            client.post(
                f"/v1/workflows/{wf.json()['id']}/advance",
                json={"decision": "approve"},
                headers=headers,
            )
        )
    answers += [
        client.get("/v1/documents", headers=headers),
        client.get("/v1/documents?limit=1", headers=headers),
        client.get("/v1/audit_logs", headers=headers),
        client.get("/v1/documents/doc_nope", headers=headers),
        client.post("/v1/documents", json={"title": ""}, headers=headers),
        client.get("/v1/vaults/vault_mock_us", headers=headers),
        client.post("/v1/documents", json={**body, "title": "Other"}, headers=keyed),
    ]
    return [(r.status_code, tuple(r.headers.get(h) for h in HEADERS), r.content) for r in answers]


def noise(base_url: str, stop: threading.Event, index: int) -> None:
    """Another account writing as fast as it can until told to stop."""
    with httpx.Client(base_url=base_url) as client:
        made = client.post("/_mock/accounts", json={"name": f"noise {index}"}).json()
        headers = key_of(made)
        vault = client.post("/v1/vaults", json={"name": "n", "region": "us"}, headers=headers)
        while not stop.is_set():
            client.post(
                "/v1/documents",
                json={"title": "noise", "vault_id": vault.json()["id"]},
                headers=headers,
            )
            client.get("/v1/audit_logs", headers=headers)


def test_a_named_account_answers_the_same_whatever_runs_beside_it() -> None:
    with inprocess_client(create_app(FROZEN)) as quiet:
        alone = flow(quiet)

    busy_app = create_app(FROZEN)
    server = LiveServer(busy_app).start()
    try:
        with httpx.Client(base_url=server.base_url) as client:
            for _index in range(5):  # accounts made before it, and traffic of theirs
                made = client.post("/_mock/accounts", json={"region": "eu"}).json()
                client.get("/v1/whoami", headers=key_of(made))
            client.post("/v1/vaults", json={"name": "seeded", "region": "us"}, headers=auth())
            stop = threading.Event()
            writers = [
                threading.Thread(target=noise, args=(server.base_url, stop, i)) for i in range(2)
            ]
            for writer in writers:
                writer.start()
            try:
                beside = flow(client)
            finally:
                stop.set()
                for writer in writers:
                    writer.join(timeout=60)
    finally:
        server.stop()
    assert [a[0] for a in alone] == [a[0] for a in beside]
    for number, (first, second) in enumerate(zip(alone, beside, strict=True)):
        assert first == second, f"answer {number} differs"
    fresh = [a[1][2] for a in alone[1:] if a[1][7] is None]  # a replay keeps the first's id
    assert len(set(fresh)) == len(fresh) == len(alone) - 2


# -- webhooks ------------------------------------------------------------------------------


def test_an_accounts_webhook_retries_run_on_its_clock(mock: httpx.Client) -> None:
    from mockserver.testing.receiver import WebhookReceiver

    one = own(mock, "hooks")
    headers, base = key_of(one), f"/_mock/accounts/{one['id']}"
    with WebhookReceiver() as receiver:
        receiver.respond(500, then=200)
        hook = mock.post(
            "/v1/webhook_endpoints",
            json={"url": receiver.url, "events": ["vault.created"]},
            headers=headers,
        )
        assert hook.status_code == 201, hook.text
        mock.post("/v1/vaults", json={"name": "v", "region": "us"}, headers=headers)
        assert mock.post(f"{base}/webhooks/wait").json()["idle"] is True
        mine = mock.get(f"{base}/webhooks/deliveries").json()["data"]
        assert [(d["status"], len(d["attempts"])) for d in mine] == [("pending", 1)]
        assert mine[0]["attempts"][0]["at"] == START
        assert mock.post("/_mock/clock/advance", json={"seconds": 3600}).status_code == 200
        assert len(receiver.wait_for(1)) == 1  # the server clock does not retry it
        mock.post(f"{base}/clock/advance", json={"seconds": 120})
        assert len(receiver.wait_for(2)) == 2
        listed = mock.get("/_mock/webhooks/deliveries", params={"account": one["id"]}).json()
        assert [d["status"] for d in listed["data"]] == ["succeeded"]
        everything = mock.get("/_mock/webhooks/deliveries").json()["data"]
        assert mine[0]["id"] in {d["id"] for d in everything}
        redone = mock.post(f"/_mock/webhooks/deliveries/{mine[0]['id']}/redeliver")
        assert redone.status_code == 202, redone.text
        assert len(receiver.wait_for(3)) == 3
        again = mock.post(f"{base}/webhooks/deliveries/{mine[0]['id']}/redeliver")
        assert again.status_code == 202, again.text
        assert len(receiver.wait_for(4)) == 4
        other = own(mock, "hooks-other")
        foreign = f"/_mock/accounts/{other['id']}/webhooks/deliveries/{mine[0]['id']}/redeliver"
        assert_envelope(mock.post(foreign), 404, "not_found")


def test_an_accounts_legal_hold_and_redelivery_reach_only_its_own(mock: httpx.Client) -> None:
    one, other = own(mock, "holds-one"), own(mock, "holds-other")
    doc = signed_document(mock, key_of(one))
    base, elsewhere = f"/_mock/accounts/{one['id']}", f"/_mock/accounts/{other['id']}"
    held = mock.post(f"{base}/documents/{doc}/legal_hold", json={"on": True})
    assert held.json() == {"id": doc, "legal_hold": True}
    refused = mock.delete(f"/v1/documents/{doc}", headers=key_of(one))
    assert_envelope(refused, 409, "conflict")
    missing = mock.post(f"{elsewhere}/documents/{doc}/legal_hold", json={"on": False})
    assert_envelope(missing, 404, "not_found")
    seeded = mock.post(f"{base}/documents/doc_mock_draft/legal_hold", json={"on": True})
    assert_envelope(seeded, 404, "not_found")
    assert mock.get("/v1/documents/doc_mock_draft", headers=auth()).json()["legal_hold"] is False
    unknown = mock.post(f"{elsewhere}/webhooks/deliveries/dlv_nowhere/redeliver")
    assert_envelope(unknown, 404, "not_found")


SETUP = """
name: with-setup
setup:
  - add_vault: {id: vault_from_setup, name: From the scenario, region: us}
timeline:
  - after: 60
    do: [{add_vault: {id: vault_from_timeline, name: Later, region: us}}]
"""


def test_an_account_scenarios_setup_and_timeline_act_in_the_account(mock: httpx.Client) -> None:
    one = own(mock, "set up")
    base, headers = f"/_mock/accounts/{one['id']}", key_of(one)
    loaded = mock.post(f"{base}/scenarios", json={"yaml": SETUP})
    assert loaded.status_code == 201, loaded.text
    assert mock.get("/v1/vaults/vault_from_setup", headers=headers).status_code == 200
    mock.post(f"{base}/snapshots", json={"name": "s"})
    mock.post(f"{base}/snapshots/s/restore")
    mock.post(f"{base}/clock/advance", json={"seconds": 60})
    assert mock.get("/v1/vaults/vault_from_timeline", headers=headers).status_code == 200
    assert mock.get("/v1/vaults/vault_from_setup", headers=auth()).status_code == 404


def test_a_named_account_is_the_same_whenever_it_is_made(mock: httpx.Client) -> None:
    first = own(mock, "same", start=START)
    mock.delete(f"/_mock/accounts/{first['id']}")
    mock.post("/_mock/clock/advance", json={"seconds": 86400})
    account(mock, name="another")
    again = own(mock, "same", start=START)
    assert (again["id"], again["keys"]) == (first["id"], first["keys"])
    implied = account(mock, name="implied", clock={"mode": "frozen"})
    assert implied["clock"]["now"] == "2026-01-15T09:00:00Z"  # the server's start time
    assert implied["id"] != own(mock, "implied too", start="2026-01-15T09:00:00Z")["id"]


def test_a_real_clock_of_its_own_starts_at_the_server_clock_and_runs(mock: httpx.Client) -> None:
    real = account(mock, name="real", clock={"mode": "real"})
    assert real["clock"]["mode"] == "real"
    assert real["clock"]["now"] >= server_now(mock)
    assert mock.get(f"/_mock/accounts/{real['id']}/clock").json()["now"] >= real["clock"]["now"]
