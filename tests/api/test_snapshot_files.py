"""Snapshot files from outside are data: crafted, damaged, huge or odd files are 422 on `file`,
change nothing and touch nothing on the host; any file that is accepted restores and serves."""

from __future__ import annotations

import copy
import gzip
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from jsonschema import Draft202012Validator

from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.engine.snapshots import file as snapshot_file
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth
from tests.support.scenarios import alias_bomb, load
from tests.support.snapshot_files import first_record

Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app, headers=auth()) as client:
        yield client


@pytest.fixture(scope="module")
def saved(client: httpx.Client) -> dict[str, Any]:
    """A downloaded file of a busy sandbox: vaults, documents, a workflow, an export, a webhook
    endpoint with deliveries waiting, a scenario, a second account."""
    client.post("/_mock/accounts", json={"name": "Second"})
    client.post("/v1/webhook_endpoints", json={"url": "http://127.0.0.1:9/x", "events": ["*"]})
    vault = client.post("/v1/vaults", json={"name": "Crafted", "region": "us"}).json()
    doc = client.post(
        "/v1/documents", json={"title": "Doc", "vault_id": vault["id"], "metadata": {"a": 1}}
    ).json()
    steps = [{"assignee": "ann@example.com"}]
    client.post("/v1/workflows", json={"document_id": doc["id"], "steps": steps})
    client.post("/v1/audit_logs/export", json={"period": "2026-01-01/2026-12-31"})
    assert client.post("/_mock/scenarios", json={"name": "flaky_documents"}).status_code == 201
    client.post("/_mock/webhooks/wait")
    client.post("/_mock/snapshots", json={"name": "base"})
    data = client.get("/_mock/snapshots/base/download").content
    parsed: dict[str, Any] = orjson.loads(data)
    parsed.pop("sha256")  # edits below would break it: the checks past the checksum count
    return parsed


def _state(client: httpx.Client) -> tuple[bytes, ...]:
    paths = ("/v1/vaults", "/v1/documents", "/_mock/snapshots", "/_mock/clock")
    return tuple(client.get(path).content for path in paths)


def _refused(client: httpx.Client, data: bytes, message: str = "") -> str:
    before = _state(client)
    attempt = client.post("/_mock/snapshots/upload", params={"name": "bad"}, content=data)
    error = assert_envelope(attempt, 422, "validation_error")
    assert error["param"] == "file"
    assert message in error["message"]
    assert _state(client) == before
    assert_envelope(client.post("/_mock/snapshots/bad/restore"), 404, "not_found")
    return str(error["message"])


def _edited(saved: dict[str, Any], edit: Edit) -> bytes:
    data = copy.deepcopy(saved)
    edit(data)
    return orjson.dumps(data)


def _world(data: dict[str, Any]) -> dict[str, Any]:
    world: dict[str, Any] = data["state"]["worlds"][0][1]
    return world


def test_the_unchanged_file_is_accepted(client: httpx.Client, saved: dict[str, Any]) -> None:
    """The edits below start from a file that loads: what refuses them is the edit."""
    ok = client.post("/_mock/snapshots/upload", params={"name": "ok"}, content=orjson.dumps(saved))
    assert ok.status_code == 201, ok.text
    assert client.post("/_mock/snapshots/ok/restore").status_code == 200
    client.delete("/_mock/snapshots/ok")


CRAFTED: list[tuple[str, Edit, str]] = [
    (
        "a class of the package by name",
        lambda d: first_record(d, "Vault").update({"$": "mockserver.engine.durable.wal.LogWriter"}),
        "must be a Vault",
    ),
    (
        "a class of the package by its short name",
        lambda d: first_record(d, "Timer").update({"$": "LogWriter", "path": "/tmp/pwned"}),
        "must be a Timer",
    ),
    (
        "a record of another place",
        lambda d: first_record(d, "Vault").update({"$": "Document"}),
        "must be a Vault",
    ),
    (
        "a field the record does not have",
        lambda d: first_record(d, "Document").update({"__class__": "os.system"}),
        "does not have: '__class__'",
    ),
    (
        "a field missing",
        lambda d: first_record(d, "Document").pop("title"),
        "lacks the field 'title'",
    ),
    (
        "a reference to nothing",
        lambda d: first_record(d, "Timer").update({"action": {"$ref": 99999}}),
        "not written before it",
    ),
    (
        "a document in a vault that does not exist",
        lambda d: first_record(d, "Document").update({"vault_id": "vault_nowhere"}),
        "vault_nowhere",
    ),
    (
        "a world of an account that does not exist",
        lambda d: _world(d).update({"account": "acct_nobody"}),
        "acct_nobody",
    ),
    (
        "a lock timer of a document that does not exist",
        lambda d: first_record(d, "Lock").update({"doc_id": "doc_nowhere"}),
        "doc_nowhere",
    ),
    (
        "a seeded run out of place",
        lambda d: _world(d)["regions"]["us"]["documents"].insert(0, {"$seeded": [5, 9]}),
        "run of the seed's documents",
    ),
    (
        "a huge number",
        lambda d: first_record(d, "Document").update({"created_at": 9 * 10**18}),
        "must be a time",
    ),
    (
        "a negative count",
        lambda d: first_record(d, "Vault").update({"lock_after": -1}),
        "whole number",
    ),
    (
        "a string where a number goes",
        lambda d: first_record(d, "Timer").update({"due": "soon"}),
        "finite number",
    ),
    (
        "a status the API does not have",
        lambda d: first_record(d, "Document").update({"status": "shredded"}),
        "must be one of",
    ),
    (
        "metadata nested too deep",
        lambda d: first_record(d, "Document").update({"metadata": {"a": _nested(64)}}),
        "nested more than",
    ),
    (
        "an id stream that is not one",
        lambda d: d["state"]["request_ids"].update({"bits": "zz"}),
        "must be an object of stream and random",
    ),
    (
        "a random generator that is not one",
        lambda d: d["state"]["request_ids"]["random"].update({"words": [1, 2, 3]}),
        "random number generator",
    ),
    (
        "a scenario text that does not load",
        lambda d: first_record(d, "Loaded")["scenario"].update({"text": "rules: [oops"}),
        "does not load",
    ),
    (
        "a clock in no mode",
        lambda d: d["state"]["clock"].update({"mode": "sideways"}),
        "must be one of",
    ),
]


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(("what", "edit", "message"), CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_crafted_file_is_refused_and_touches_nothing(
    client: httpx.Client,
    saved: dict[str, Any],
    what: str,
    edit: Edit,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    said = _refused(client, _edited(saved, edit), message)
    assert "state" in said  # the message says where
    assert list(tmp_path.iterdir()) == []
    assert not Path("/tmp/pwned").exists()


@pytest.mark.parametrize(
    ("what", "data", "message"),
    [
        ("random bytes", random.Random(3).randbytes(5000), "not JSON"),
        ("gzip that is not", b"\x1f\x8b" + bytes(100), "gzip"),
        ("JSON nested ten thousand deep", b"[" * 10_000 + b"]" * 10_000, "not JSON"),
        ("a number beyond any float", b'{"format": 1e999, "state": {}}', "not JSON"),
        ("an integer beyond 64 bits", b'{"format": 1, "state": 1' + b"0" * 40 + b"}", ""),
        ("an unknown format", b'{"format": 7, "state": {}}', "format 7"),
        ("a format that is not a number", b'{"format": "one", "state": {}}', "not a snapshot"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else "",
)
def test_odd_bytes_are_refused(client: httpx.Client, what: str, data: bytes, message: str) -> None:
    _refused(client, data, message)


def test_an_empty_upload_is_refused(client: httpx.Client) -> None:
    _refused(client, b"", "empty")


def test_a_gzip_bomb_stops_at_the_limit(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decompression stops one byte past the limit, whatever the file would inflate to (the
    limit is lowered here so the test stays small; the mechanism is the same)."""
    monkeypatch.setattr(snapshot_file, "MAX_BYTES", 1 << 20)
    bomb = gzip.compress(bytes(64 << 20), compresslevel=9)  # 64 MiB of zeros in ~64 KiB
    assert len(bomb) < 200_000
    _refused(client, bomb, "more than 1 MiB")


def test_a_gzip_of_tiny_objects_is_refused_before_it_is_parsed(client: httpx.Client) -> None:
    """4 MiB of `{}` (a 4 KiB gzip) would take some 100 MiB as objects: refused from its text,
    before parsing builds any of them."""
    tiny = b'{"format": 4, "state": {"journal": [' + b"{}," * ((4 << 20) // 3) + b"{}]}}"
    bomb = gzip.compress(tiny, compresslevel=9)
    assert len(bomb) < 20_000
    _refused(client, bomb, "far more small values for its size than a snapshot")


def test_a_file_edited_by_hand_loads_without_its_checksum(
    client: httpx.Client, saved: dict[str, Any]
) -> None:
    def rename(data: dict[str, Any]) -> None:
        first_record(data, "Vault")["name"] = "Renamed by hand"

    uploaded = client.post(
        "/_mock/snapshots/upload", params={"name": "edited"}, content=_edited(saved, rename)
    )
    assert uploaded.status_code == 201, uploaded.text
    assert client.post("/_mock/snapshots/edited/restore").status_code == 200
    names = [v["name"] for v in client.get("/v1/vaults").json()["data"]]
    assert "Renamed by hand" in names
    client.delete("/_mock/snapshots/edited")


def test_a_scenario_text_with_yaml_aliases_is_refused(api: httpx.Client) -> None:
    """A saved scenario is read again from its text on upload: its aliases are refused as a
    file's are, before anything is built from them."""
    load(api, alias_bomb(1))  # a rule without aliases, then its text edited to have them
    api.post("/_mock/snapshots", json={"name": "one_rule"})
    data = orjson.loads(api.get("/_mock/snapshots/one_rule/download").content)
    data.pop("sha256")
    first_record(data, "Loaded")["scenario"]["text"] = alias_bomb(6)
    message = _refused(api, orjson.dumps(data), "YAML aliases are not allowed")
    assert "<inline>:9: " in message


def _mutations(saved: dict[str, Any], count: int) -> Iterator[bytes]:
    """Seeded random edits of the file: values swapped for values of other types, fields
    dropped, lists cut, numbers moved."""
    rng = random.Random(2024)
    odd_values: list[Any] = [None, True, -1, 0, 2**40, 1.5, "", "x", [], {}, {"$ref": 0}]
    for _ in range(count):
        data = copy.deepcopy(saved)
        places: list[tuple[Any, Any]] = []
        stack: list[Any] = [data["state"]]
        while stack:
            item = stack.pop()
            keys = item.keys() if isinstance(item, dict) else range(len(item))
            for key in keys:
                places.append((item, key))
                if isinstance(item[key], dict | list):
                    stack.append(item[key])
        container, key = rng.choice(places)
        roll = rng.random()
        if roll < 0.5:
            container[key] = rng.choice(odd_values)
        elif roll < 0.7 and isinstance(container, dict):
            del container[key]
        elif roll < 0.85 and isinstance(container[key], list) and container[key]:
            del container[key][rng.randrange(len(container[key]))]
        elif isinstance(container[key], int) and not isinstance(container[key], bool):
            container[key] += rng.choice((-1, 1, 1000))
        else:
            container[key] = rng.choice(odd_values)
        yield orjson.dumps(data)


def test_seeded_random_edits_are_refused_or_serve_without_error(
    client: httpx.Client, saved: dict[str, Any]
) -> None:
    """Two hundred edited files: each is refused with 422 on `file` and changes nothing, or is
    accepted, restores, and the sandbox it restores answers without a 500."""
    accepted = 0
    for data in _mutations(saved, 200):
        before = _state(client)
        attempt = client.post("/_mock/snapshots/upload", params={"name": "fuzz"}, content=data)
        if attempt.status_code == 422:
            assert attempt.json()["error"]["param"] == "file"
            assert _state(client) == before
            continue
        assert attempt.status_code == 201, attempt.text
        accepted += 1
        assert client.post("/_mock/snapshots/fuzz/restore").status_code == 200
        for path in (
            "/v1/vaults",
            "/v1/documents",
            "/v1/audit_logs",
            "/v1/webhook_endpoints",
            "/_mock/webhooks/deliveries",
            "/_mock/requests",
        ):
            assert client.get(path).status_code < 500, path
        assert client.post("/_mock/clock/advance", json={"seconds": 3600}).status_code < 500
        client.delete("/_mock/snapshots/fuzz")
    assert accepted < 200  # most edits break something the reader checks


def test_the_published_schema_describes_the_file(
    saved: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """`mockserver schema snapshot` prints a valid JSON Schema that a downloaded file meets."""
    assert main(["schema", "snapshot"]) == 0
    schema = orjson.loads(capsys.readouterr().out)
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(saved)
    refused = copy.deepcopy(saved)
    first_record(refused, "Document")["status"] = "shredded"
    assert not Draft202012Validator(schema).is_valid(refused)
