"""Snapshots through `/_mock/snapshots`: exact restores, the file, and every refusal."""

from __future__ import annotations

import gzip
import hashlib
import os
import pickle
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.engine.snapshots.file import FORMAT
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import closed_port
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth
from tests.support.webhooks import settle

Exchange = tuple[str, int, list[tuple[str, str]], bytes]


def _record(response: httpx.Response) -> Exchange:
    """The exchange, less what is not the sandbox's: a control-plane call's request id comes
    from a stream of its own, which no snapshot holds (steering never changes the state)."""
    control = response.request.url.path.startswith("/_mock")
    headers = [
        (k, v)
        for k, v in response.headers.items()
        if k != "content-length" and not (control and k == "x-request-id")
    ]
    return (f"{response.request.method} {response.request.url.path}", response.status_code,
            headers, response.content)  # fmt: skip


def _mixed_requests(client: httpx.Client, hook_port: int) -> list[Exchange]:
    """Fifty-odd requests of every kind: creates (some with idempotency keys, one replayed),
    workflows approved to signing, refusals, a clock advance that locks the signed documents
    and retries the failed webhook deliveries, an audit export, reads of all of it."""
    out: list[Exchange] = []

    def call(method: str, path: str, **kwargs: Any) -> httpx.Response:
        response = client.request(method, path, **kwargs)
        out.append(_record(response))
        return response

    endpoint = call(
        "POST", "/v1/webhook_endpoints",
        json={"url": f"http://127.0.0.1:{hook_port}/hook", "events": ["*"]},
    )  # fmt: skip
    assert endpoint.status_code == 201, endpoint.text
    vault = call("POST", "/v1/vaults", json={"name": "Snap", "region": "us"}).json()
    docs = []
    for n in range(6):
        doc = call(
            "POST", "/v1/documents",
            json={"title": f"Deal {n}", "vault_id": vault["id"], "metadata": {"n": n}},
            headers={"Idempotency-Key": f"snap-{n}"},
        ).json()  # fmt: skip
        docs.append(doc["id"])
        if n < 4:
            workflow = call(
                "POST", "/v1/workflows",
                json={"document_id": doc["id"], "steps": [{"assignee": "ann@example.com"}]},
            ).json()  # fmt: skip
            call("POST", f"/v1/workflows/{workflow['id']}/advance", json={"decision": "approve"})
            call("GET", f"/v1/workflows/{workflow['id']}")
    call(
        "POST", "/v1/documents", json={"title": "Deal 0", "vault_id": vault["id"],
        "metadata": {"n": 0}}, headers={"Idempotency-Key": "snap-0"},
    )  # fmt: skip
    call("POST", "/v1/documents", json={"title": "No vault"})
    call("GET", "/v1/documents/doc_does_not_exist")
    call("DELETE", f"/v1/documents/{docs[0]}")  # signed: kept under retention, 409
    call("DELETE", f"/v1/documents/{docs[5]}")  # a draft: deleted
    settle(client)
    call("POST", "/_mock/clock/advance", json={"seconds": 3600})
    call("POST", "/v1/audit_logs/export", json={"period": "2026-01-01/2026-12-31"})
    call("POST", "/_mock/clock/advance", json={"seconds": 120})
    for doc_id in docs:
        call("GET", f"/v1/documents/{doc_id}")
    call("GET", "/v1/documents", params={"vault_id": vault["id"]})
    call("GET", "/v1/documents", params={"status": "locked", "limit": 2})
    call("GET", f"/v1/vaults/{vault['id']}")
    call("GET", "/v1/vaults")
    call("GET", "/v1/webhook_endpoints")
    call("GET", "/v1/audit_logs")
    call("GET", "/v1/audit_logs", params={"resource_id": docs[1]})
    call("GET", "/v1/whoami")
    for n in range(8):
        call("GET", f"/v1/documents/{docs[n % 5]}")
    settle(client)
    deliveries = client.get("/_mock/webhooks/deliveries").json()["data"]
    for delivery in deliveries:  # real milliseconds the receiver took: not mock state
        for attempt in delivery["attempts"]:
            attempt.pop("duration_ms", None)
    out.append(("deliveries", 200, [], orjson.dumps(deliveries)))
    return out


@pytest.fixture
def hook_port() -> int:
    return closed_port()  # every delivery attempt fails (connection refused) and is retried


def test_a_restore_replays_fifty_mixed_requests_byte_for_byte(
    both: httpx.Client, hook_port: int
) -> None:
    both.get("/v1/documents")  # a world built from the seed before the snapshot
    saved = both.post("/_mock/snapshots", json={"name": "before-mixed"})
    assert saved.status_code == 201, saved.text
    first = _mixed_requests(both, hook_port)
    assert len(first) >= 50
    statuses = {status for _, status, _, _ in first}
    assert {200, 201, 202, 404, 409, 422} <= statuses
    locked = both.get("/v1/documents", params={"status": "locked"}).json()["data"]
    assert len(locked) >= 4  # the advance locked the signed documents
    deliveries = orjson.loads(first[-1][3])
    assert any(len(d["attempts"]) > 1 for d in deliveries)  # the advance retried them

    restored = both.post("/_mock/snapshots/before-mixed/restore")
    assert restored.status_code == 200, restored.text
    assert restored.json()["restored"] is True
    second = _mixed_requests(both, hook_port)
    for one, two in zip(first, second, strict=True):
        assert one == two
    both.delete("/_mock/snapshots/before-mixed")


def test_a_snapshot_can_be_restored_again_and_again(api: httpx.Client) -> None:
    api.post("/v1/vaults", json={"name": "Kept", "region": "us"})
    api.post("/_mock/snapshots", json={"name": "again"})
    answers = []
    for _ in range(3):
        assert api.post("/_mock/snapshots/again/restore").status_code == 200
        created = api.post("/v1/vaults", json={"name": "After", "region": "us"})
        answers.append((created.headers["x-request-id"], created.content))
    assert answers[0] == answers[1] == answers[2]
    api.delete("/_mock/snapshots/again")


def test_save_list_replace_delete(api: httpx.Client) -> None:
    first = api.post("/_mock/snapshots", json={"name": "one.v1"}).json()
    assert first["name"] == "one.v1"
    assert first["created_at"] == "2026-01-15T09:00:00Z"  # the mock clock
    assert first["bytes"] > 0
    api.post("/_mock/clock/advance", json={"seconds": 60})
    replaced = api.post("/_mock/snapshots", json={"name": "one.v1"}).json()
    assert replaced["created_at"] == "2026-01-15T09:01:00Z"
    names = [s["name"] for s in api.get("/_mock/snapshots").json()["data"]]
    assert names.count("one.v1") == 1
    download = api.get("/_mock/snapshots/one.v1/download")
    assert download.headers["content-type"] == "application/json"
    assert len(download.content) == replaced["bytes"]
    assert api.delete("/_mock/snapshots/one.v1").json() == {"name": "one.v1", "deleted": True}
    assert "one.v1" not in [s["name"] for s in api.get("/_mock/snapshots").json()["data"]]


def test_a_reset_keeps_snapshots_and_a_restore_undoes_it(api: httpx.Client) -> None:
    vault = api.post("/v1/vaults", json={"name": "Survivor", "region": "us"}).json()
    api.post("/_mock/snapshots", json={"name": "with-vault"})
    api.post("/_mock/reset")
    assert_envelope(api.get(f"/v1/vaults/{vault['id']}"), 404, "not_found")
    api.post("/_mock/snapshots/with-vault/restore")
    assert api.get(f"/v1/vaults/{vault['id']}").json()["name"] == "Survivor"
    api.delete("/_mock/snapshots/with-vault")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/_mock/snapshots/nope/restore"),
        ("DELETE", "/_mock/snapshots/nope"),
        ("GET", "/_mock/snapshots/nope/download"),
    ],
)
def test_unknown_names_are_404(api: httpx.Client, method: str, path: str) -> None:
    error = assert_envelope(api.request(method, path), 404, "not_found")
    assert "nope" in error["message"]


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "slash/no", 7, None])
def test_bad_names_are_422_name(api: httpx.Client, name: Any) -> None:
    error = assert_envelope(
        api.post("/_mock/snapshots", json={"name": name}), 422, "validation_error"
    )
    assert error["param"] == "name"


@pytest.mark.parametrize("query", [{}, {"name": ""}, {"name": "a b"}, {"name": "x" * 65}])
def test_an_upload_needs_a_good_name(api: httpx.Client, query: dict[str, str]) -> None:
    attempt = api.post("/_mock/snapshots/upload", params=query, content=b"{}")
    assert assert_envelope(attempt, 422, "validation_error")["param"] == "name"


# -- the file ------------------------------------------------------------------------------


@pytest.fixture
def snapshot_file(api: httpx.Client) -> Iterator[bytes]:
    api.post("/v1/vaults", json={"name": "In the file", "region": "us"})
    api.post("/_mock/snapshots", json={"name": "filed"})
    yield api.get("/_mock/snapshots/filed/download").content
    api.delete("/_mock/snapshots/filed")


def _changed(data: bytes, **changes: Any) -> bytes:
    """The file with top-level fields changed (its checksum left out, as a hand edit may)."""
    fields = orjson.loads(data)
    fields.pop("sha256")
    fields.update(changes)
    return orjson.dumps(fields)


def _unchanged(api: httpx.Client, attempt: httpx.Response, message: str) -> None:
    before = (api.get("/v1/vaults").content, api.get("/_mock/snapshots").content)
    error = assert_envelope(attempt, 422, "validation_error")
    assert error["param"] == "file"
    assert message in error["message"]
    assert (api.get("/v1/vaults").content, api.get("/_mock/snapshots").content) == before


def test_an_uploaded_file_restores_like_the_original(
    api: httpx.Client, snapshot_file: bytes
) -> None:
    uploaded = api.post("/_mock/snapshots/upload", params={"name": "copy"}, content=snapshot_file)
    assert uploaded.status_code == 201, uploaded.text
    assert uploaded.json()["bytes"] == len(snapshot_file)
    assert api.get("/_mock/snapshots/copy/download").content == snapshot_file
    api.post("/_mock/snapshots/filed/restore")
    original = api.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"})
    api.post("/_mock/snapshots/copy/restore")
    copy = api.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"})
    assert (copy.headers["x-request-id"], copy.content) == (
        original.headers["x-request-id"], original.content)  # fmt: skip
    api.delete("/_mock/snapshots/copy")


def test_a_gzipped_file_is_read_and_kept_as_its_json(
    api: httpx.Client, snapshot_file: bytes
) -> None:
    packed = gzip.compress(snapshot_file)
    uploaded = api.post("/_mock/snapshots/upload", params={"name": "packed"}, content=packed)
    assert uploaded.status_code == 201, uploaded.text
    assert api.get("/_mock/snapshots/packed/download").content == snapshot_file
    assert api.post("/_mock/snapshots/packed/restore").status_code == 200
    api.delete("/_mock/snapshots/packed")


def test_two_downloads_and_a_round_trip_give_the_same_bytes(
    api: httpx.Client, snapshot_file: bytes
) -> None:
    assert api.get("/_mock/snapshots/filed/download").content == snapshot_file
    api.post("/_mock/snapshots/upload", params={"name": "again"}, content=snapshot_file)
    api.post("/v1/vaults", json={"name": "After", "region": "eu"})
    assert api.post("/_mock/snapshots/again/restore").status_code == 200
    api.post("/_mock/snapshots", json={"name": "resaved"})
    assert api.get("/_mock/snapshots/resaved/download").content == snapshot_file
    for name in ("again", "resaved"):
        api.delete(f"/_mock/snapshots/{name}")


def test_the_file_is_json_of_the_documented_fields(snapshot_file: bytes) -> None:
    fields = orjson.loads(snapshot_file)
    assert list(fields) == [
        "format", "mockserver", "seed", "random_seed", "start", "created_at", "sha256", "state"
    ]  # fmt: skip
    assert fields["format"] == FORMAT
    vaults = fields["state"]["worlds"][0][1]["regions"]["us"]["vaults"]
    assert any(v.get("name") == "In the file" for v in vaults)  # readable: the vault is there


def _flip(data: bytes) -> bytes:
    """One byte of the state changed, the file still JSON: a digit of a number."""
    at = data.index(b'"created_at":', data.index(b'"state"')) + len(b'"created_at":')
    digit = data[at : at + 1]
    return data[:at] + (b"1" if digit != b"1" else b"2") + data[at + 1 :]


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda data: b"PK\x03\x04" + data, "not JSON"),
        (lambda data: data[:30], "not JSON"),
        (lambda data: data[:-1], "not JSON"),
        (lambda data: b"", "empty"),
        (lambda data: b"[1, 2]", "no 'format' and 'state'"),
        (_flip, "checksum"),
        (lambda data: _changed(data, format=FORMAT + 1), f"format {FORMAT + 1}"),
        (lambda data: _changed(data, format="1"), "not a snapshot format"),
        (lambda data: _changed(data, seed="0" * 64), "another seed"),
        (lambda data: _changed(data, random_seed=1), "--random-seed 1"),
        (lambda data: _changed(data, start=0), "--start-time"),
        (lambda data: _changed(data, state="not a state"), "not valid at state"),
        (lambda data: _changed(data, extra=1), "top level"),
    ],
)
def test_foreign_or_damaged_files_are_refused_and_change_nothing(
    api: httpx.Client, snapshot_file: bytes, mangle: Any, message: str
) -> None:
    attempt = api.post(
        "/_mock/snapshots/upload", params={"name": "bad"}, content=mangle(snapshot_file)
    )
    _unchanged(api, attempt, message)
    assert_envelope(api.post("/_mock/snapshots/bad/restore"), 404, "not_found")


def test_another_mockserver_version_is_no_reason_to_refuse(
    api: httpx.Client, snapshot_file: bytes
) -> None:
    other = _changed(snapshot_file, mockserver="0.0.1")
    uploaded = api.post("/_mock/snapshots/upload", params={"name": "older"}, content=other)
    assert uploaded.status_code == 201, uploaded.text
    assert api.post("/_mock/snapshots/older/restore").status_code == 200
    api.delete("/_mock/snapshots/older")


class _Exploit:
    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("touch should-never-exist",))


def test_a_pickle_of_an_earlier_version_is_refused_unread(
    api: httpx.Client, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    payload = pickle.dumps({"clock": _Exploit()})
    header = orjson.dumps({"format": 1, "sha256": hashlib.sha256(payload).hexdigest()})
    attempt = api.post(
        "/_mock/snapshots/upload", params={"name": "evil"},
        content=b"MOCKSNAP\n" + header + b"\n" + payload,
    )  # fmt: skip
    _unchanged(api, attempt, "earlier mockserver")
    assert not (tmp_path / "should-never-exist").exists()


def test_a_snapshot_file_moves_to_another_app_of_the_same_seed(snapshot_file: bytes) -> None:
    other = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(other, headers=auth()) as client:
        uploaded = client.post(
            "/_mock/snapshots/upload", params={"name": "moved"}, content=snapshot_file
        )
        assert uploaded.status_code == 201, uploaded.text
        client.post("/_mock/snapshots/moved/restore")
        names = [v["name"] for v in client.get("/v1/vaults").json()["data"]]
        assert "In the file" in names


def test_another_random_seed_refuses_the_file(snapshot_file: bytes) -> None:
    other = create_app(Settings(clock_mode="frozen", random_seed=7))
    with inprocess_client(other, headers=auth()) as client:
        attempt = client.post(
            "/_mock/snapshots/upload", params={"name": "x"}, content=snapshot_file
        )
        error = assert_envelope(attempt, 422, "validation_error")
        assert "--random-seed" in error["message"]


def test_a_real_clock_runs_on_from_the_saved_time() -> None:
    app: Starlette = create_app(Settings(clock_mode="real", start_time="2030-01-01T00:00:00Z"))
    with inprocess_client(app, headers=auth()) as client:
        client.post("/_mock/clock/advance", json={"seconds": 86400})
        saved = client.post("/_mock/snapshots", json={"name": "day2"}).json()
        assert saved["created_at"].startswith("2030-01-02T00:00")
        client.post("/_mock/clock/advance", json={"seconds": 30 * 86400})
        restored = client.post("/_mock/snapshots/day2/restore").json()
        assert restored["mode"] == "real"
        assert restored["now"].startswith("2030-01-02T00:0")


def test_scenario_counters_and_timelines_come_back(api: httpx.Client) -> None:
    """A rule's `nth` counter and a timeline entry still pending are part of the snapshot."""
    for name in ("flaky_documents", "key_revoked_mid_session"):
        assert api.post("/_mock/scenarios", json={"name": name}).status_code == 201
    body = {"title": "First", "vault_id": "vault_mock_us"}
    assert api.post("/v1/documents", json=body).status_code == 201
    api.post("/_mock/snapshots", json={"name": "mid-scenario"})

    def run() -> list[int]:
        statuses = [api.post("/v1/documents", json=body).status_code]  # the 2nd create: 500
        statuses.append(api.post("/v1/documents", json=body).status_code)
        api.post("/_mock/clock/advance", json={"seconds": 300})  # the key is revoked
        statuses.append(api.get("/v1/whoami").status_code)
        return statuses

    assert run() == [500, 201, 401]
    assert api.post("/_mock/snapshots/mid-scenario/restore").status_code == 200
    assert api.get("/v1/whoami").status_code == 200  # the key is back, its timer pending
    assert run() == [500, 201, 401]
    api.delete("/_mock/snapshots/mid-scenario")
