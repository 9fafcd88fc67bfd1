"""Snapshots through `/_mock/snapshots`: exact restores, the file, and every refusal."""

from __future__ import annotations

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
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import closed_port
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth
from tests.support.webhooks import settle

Exchange = tuple[str, int, list[tuple[str, str]], bytes]


def _record(response: httpx.Response) -> Exchange:
    headers = [(k, v) for k, v in response.headers.items() if k != "content-length"]
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
    assert download.headers["content-type"] == "application/octet-stream"
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
    attempt = api.post("/_mock/snapshots/upload", params=query, content=b"MOCKSNAP\n")
    assert assert_envelope(attempt, 422, "validation_error")["param"] == "name"


# -- the file ------------------------------------------------------------------------------


@pytest.fixture
def snapshot_file(api: httpx.Client) -> Iterator[bytes]:
    api.post("/v1/vaults", json={"name": "In the file", "region": "us"})
    api.post("/_mock/snapshots", json={"name": "filed"})
    yield api.get("/_mock/snapshots/filed/download").content
    api.delete("/_mock/snapshots/filed")


def _with_header(data: bytes, **changes: Any) -> bytes:
    """The file with header fields changed (and the checksum made right for its state)."""
    magic, header, state = data.split(b"\n", 2)
    fields = orjson.loads(header)
    fields.update(changes)
    if "state" in changes:
        state = fields.pop("state")
        fields["sha256"], fields["bytes"] = hashlib.sha256(state).hexdigest(), len(state)
    return magic + b"\n" + orjson.dumps(fields) + b"\n" + state


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


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda data: b"PK\x03\x04" + data, "not a mockserver snapshot"),
        (lambda data: data[:30], "header is damaged"),
        (lambda data: data[:-10] + bytes(10), "damaged"),
        (lambda data: data[:-1], "damaged"),
        (lambda data: _with_header(data, format=2), "format 2"),
        (lambda data: _with_header(data, mockserver="0.0.1"), "mockserver 0.0.1"),
        (lambda data: _with_header(data, seed="0" * 64), "another seed"),
        (lambda data: _with_header(data, random_seed=1), "--random-seed 1"),
        (lambda data: _with_header(data, start=0), "--start-time"),
        (lambda data: _with_header(data, state=b"not a pickle"), "cannot be read"),
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


class _Exploit:
    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("touch should-never-exist",))


def test_a_file_naming_anything_but_mockserver_classes_is_refused(
    api: httpx.Client, snapshot_file: bytes, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    payload = pickle.dumps({"clock": _Exploit()})
    attempt = api.post(
        "/_mock/snapshots/upload", params={"name": "evil"},
        content=_with_header(snapshot_file, state=payload),
    )  # fmt: skip
    _unchanged(api, attempt, "posix.system")
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
