"""`GET /_mock/seed`: the sandbox's data as a seed file that loads, and a server started from it
serves the same resources (ids, fields, states, times and list order)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from starlette.applications import Starlette

from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import EU, FULL, LIVE, auth
from tests.support.seed_export import State, build, read_everything, workflow_ids

FROZEN = Settings(clock_mode="frozen", rate_limit=False)  # many reads: no 429s
DEFAULT_KEYS = [FULL, LIVE, EU]


def _export(client: httpx.Client) -> str:
    response = client.get("/_mock/seed")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/yaml"
    return response.text


def _from_seed(tmp_path: Path, text: str, **settings: Any) -> Starlette:
    """A server started from `text`, once `mockserver validate` accepted it."""
    path = tmp_path / "state.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    return create_app(dataclasses.replace(FROZEN, seed_path=path, **settings))


def _assert_same(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert list(after) == list(before)
    for what, seen in before.items():
        assert after[what] == seen, what


def _workflows_of(client: httpx.Client, state: State) -> dict[str, int]:
    """The status of GET of each workflow of a deleted document, through each key and host."""
    return {
        f"{key} {prefix} {flow}": client.get(
            f"{prefix}/workflows/{flow}", headers=auth(key)
        ).status_code
        for key in state.keys
        for prefix in ("/us/v1", "/eu/v1")
        for flow in state.gone_workflows
    }


def test_a_built_state_comes_back_from_its_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = create_app(FROZEN)
    with inprocess_client(original) as client:
        state = build(client)
        text = _export(client)
        assert _export(client) == text  # the same state, the same bytes
        seed = yaml.safe_load(text)
        assert seed["reference_time"] == "2026-01-15T09:11:00Z"  # the mock clock's time
        flows = workflow_ids(text)
        # Deleted documents and their workflows are left out; everything else is there.
        assert not set(flows) & set(state.gone_workflows)
        assert set(state.workflows) <= set(flows)
        before = read_everything(client, state.keys, flows)
        assert 200 in _workflows_of(client, state).values()

    reloaded = _from_seed(tmp_path, text, start_time=seed["reference_time"])
    with inprocess_client(reloaded) as client:
        _assert_same(before, read_everything(client, state.keys, flows))
        assert _export(client) == text  # its seed is the seed it started from
        assert set(_workflows_of(client, state).values()) == {404}
    assert "ok (seed)" in capsys.readouterr().out


def test_what_the_seed_left_to_happen_happens_alike(tmp_path: Path) -> None:
    """A signature's lock still to come, and new objects: the ids the seed holds stay theirs."""
    original = create_app(FROZEN)
    with inprocess_client(original) as client:
        state = build(client)
        text = _export(client)
    seed = yaml.safe_load(text)
    reloaded = _from_seed(tmp_path, text, start_time=seed["reference_time"])
    flows = workflow_ids(text)
    saved_keys = [key["key"] for account in seed["accounts"] for key in account["keys"]]
    assert len(saved_keys) == 7  # the second account's full and read-only keys too
    seen = []
    for app in (original, reloaded):
        with inprocess_client(app, headers=auth(FULL)) as client:
            assert client.get(f"/v1/documents/{state.pending_lock}").json()["status"] == "signed"
            client.post("/_mock/clock/advance", json={"seconds": 300})
            assert client.get(f"/v1/documents/{state.pending_lock}").json()["status"] == "locked"
            seen.append(read_everything(client, state.keys, flows))
            listed = client.get("/v1/documents?limit=100").json()["data"]
            made = client.post(
                "/v1/documents", json={"title": "After", "vault_id": "vault_mock_us"}
            )
            assert made.status_code == 201
            assert made.json()["id"] not in {doc["id"] for doc in listed}
            assert len(client.get("/v1/documents?limit=100").json()["data"]) == len(listed) + 1
            third = client.post("/_mock/accounts", json={"region": "us"}).json()
            assert not set(third["keys"].values()) & set(saved_keys)
            for key in saved_keys:  # the saved accounts' keys are still theirs
                mine = client.get("/v1/whoami", headers=auth(key)).json()
                assert mine.get("account_id") != third["id"]
    _assert_same(*seen)


def test_the_untouched_default_sandbox_round_trips(tmp_path: Path) -> None:
    original = create_app(FROZEN)
    with inprocess_client(original) as client:
        text = _export(client)
        assert yaml.safe_load(text)["reference_time"] == "2026-01-15T09:00:00Z"
        flows = workflow_ids(text)
        before = read_everything(client, DEFAULT_KEYS, flows)
    with inprocess_client(_from_seed(tmp_path, text)) as client:  # the default start
        _assert_same(before, read_everything(client, DEFAULT_KEYS, flows))
        assert _export(client) == text


def test_reading_builds_nothing_and_shows_what_building_would(tmp_path: Path) -> None:
    """A world nobody used yet is read from the seed, with the locks that fell due since."""
    app = create_app(FROZEN)
    store = app.state.store
    with inprocess_client(app, headers=auth(FULL)) as client:
        client.post("/_mock/clock/advance", json={"seconds": 300})  # doc_mock_signed's lock
        worlds = dict(store.worlds)
        unbuilt = _export(client)
        assert store.worlds == worlds
        assert ("acct_mock_us", "sandbox") not in worlds
        assert client.get("/v1/documents/doc_mock_signed").json()["status"] == "locked"
        assert _export(client) == unbuilt  # now built: the same seed


def test_started_elsewhere_every_time_moves_alike(tmp_path: Path) -> None:
    original = create_app(FROZEN)
    with inprocess_client(original, headers=auth(FULL)) as client:
        client.post("/_mock/clock/advance", json={"seconds": 3600})
        made = client.post("/v1/documents", json={"title": "T", "vault_id": "vault_mock_us"})
        doc_id = made.json()["id"]
        text = _export(client)
    with inprocess_client(_from_seed(tmp_path, text), headers=auth(FULL)) as client:
        # The seed's reference time (10:00) lands on the default start (09:00).
        assert client.get(f"/v1/documents/{doc_id}").json()["created_at"] == "2026-01-15T09:00:00Z"
        seeded = client.get("/v1/documents/doc_mock_draft").json()["created_at"]
    assert seeded == "2025-06-02T09:00:00Z"  # an hour before the original's 10:00


def test_a_clock_set_back_before_the_data_is_refused(api: httpx.Client) -> None:
    api.post("/v1/documents", json={"title": "T", "vault_id": "vault_mock_us"})
    api.post("/_mock/clock/set", json={"at": "2026-01-01T00:00:00Z"})
    error = assert_envelope(api.get("/_mock/seed"), 409, "conflict")
    assert "cannot be written as a valid seed" in error["message"]
    assert "is after the reference time 2026-01-01T00:00:00Z" in error["message"]


def test_the_admin_token_guards_it() -> None:
    app = create_app(dataclasses.replace(FROZEN, admin_token="s3cret"))
    with inprocess_client(app) as client:
        assert_envelope(client.get("/_mock/seed"), 401, "authentication_error")
        answer = client.get("/_mock/seed", headers={"X-Mock-Admin-Token": "s3cret"})
        assert answer.status_code == 200
        assert answer.text.startswith("# The data of a mockserver sandbox")


def test_a_snapshot_file_gives_the_seed_the_server_gave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mockserver seed from-snapshot FILE` prints what GET /_mock/seed answered on the server
    the snapshot was taken on (its random seed and clock start read from the file)."""
    settings = Settings(clock_mode="frozen", random_seed=11, start_time="2031-03-04T05:06:07Z")
    app = create_app(settings)
    with inprocess_client(app, headers=auth()) as client:
        client.post("/v1/vaults", json={"name": "Kept in a snapshot", "region": "eu"})
        client.post("/_mock/clock/advance", json={"seconds": 90})
        client.post("/_mock/snapshots", json={"name": "kept"})
        saved = tmp_path / "kept.json"
        saved.write_bytes(client.get("/_mock/snapshots/kept/download").content)
        direct = client.get("/_mock/seed").text
    assert main(["seed", "from-snapshot", str(saved)]) == 0
    assert capsys.readouterr().out == direct
    damaged = tmp_path / "damaged.json"
    damaged.write_bytes(saved.read_bytes()[:-40])
    assert main(["seed", "from-snapshot", str(damaged)]) == 2
    assert "not JSON" in capsys.readouterr().err
    assert main(["seed", "from-snapshot", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
