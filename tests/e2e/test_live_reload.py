"""`mockserver run --watch` over a real socket: a saved scenario or seed file is followed,
an invalid save changes nothing and is shown, and every answer names the version of the
scenario that produced it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from mockserver.core.shipped import default_seed_path
from tests.support.cli import Run
from tests.support.durable import DurableServer
from tests.support.keys import auth

DEADLINE = 15.0  # seconds a save may take to show, on a busy machine (the contract is 1 s)
T = TypeVar("T")
SHOWN = 'class="error reload-error"'  # a problem shown on the scenarios page
BANNER = 'data-testid="reload-error"'  # the banner of every page

TEAPOT = """\
name: teapot
description: The vault list answers {status}.
rules:
  - name: brew
    match:
      method: GET
      path: /v1/vaults
    respond:
      status: {status}
"""


def until(check: Callable[[], T | None], what: str) -> T:
    """The first truthy value of `check()`, asked until DEADLINE."""
    pause = threading.Event()
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        pause.wait(0.05)
    raise AssertionError(f"not within {DEADLINE} s: {what}")


def save(path: Path, text: str, *, rename: bool = False) -> None:
    """Save as an editor does: in place, or by writing a temporary file renamed over it."""
    if rename:
        temporary = path.with_name(f".{path.name}.swp")
        temporary.write_text(text)
        os.replace(temporary, path)
    else:
        path.write_text(text)


class Served:
    """A `mockserver run --watch` process and a client of it."""

    def __init__(self, run: Run, client: httpx.Client) -> None:
        self.run = run
        self.client = client

    def vaults_status(self) -> int:
        return self.client.get("/v1/vaults").status_code

    def scenarios(self) -> dict[str, Any]:
        listing: dict[str, Any] = self.client.get("/_mock/scenarios").json()
        return listing

    def scenario(self, name: str) -> dict[str, Any] | None:
        return next((s for s in self.scenarios()["data"] if s["name"] == name), None)


@contextlib.contextmanager
def serve(tmp_path: Path, *options: str) -> Iterator[Served]:
    run = Run(tmp_path, "--port", "0", "--watch", "--clock", "frozen", *options).start()
    try:
        _, port = run.listening()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth(), timeout=30) as c:
            yield Served(run, c)
    finally:
        run.kill()


@pytest.fixture
def teapot(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    scenario = tmp_path / "teapot.yaml"
    scenario.write_text(TEAPOT.format(status=418))
    with serve(tmp_path, "--scenario", str(scenario)) as served:
        yield served, scenario


def test_a_saved_rule_answers_the_next_request_and_the_state_stays(
    teapot: tuple[Served, Path],
) -> None:
    served, scenario = teapot
    client = served.client
    assert served.vaults_status() == 418
    first = served.scenario("teapot")
    assert first is not None
    assert first["source"] == str(scenario.resolve())
    made = client.post("/v1/vaults", json={"name": "Kept", "region": "us"})
    assert made.status_code == 201
    client.post("/_mock/clock/advance", json={"seconds": 3600})
    clock = client.get("/_mock/clock").json()["now"]

    save(scenario, TEAPOT.format(status=503))
    until(lambda: served.vaults_status() == 503, "the saved status answering")

    assert client.get(f"/v1/vaults/{made.json()['id']}").status_code == 200  # data kept
    assert client.get("/_mock/clock").json()["now"] == clock  # clock kept
    now = served.scenario("teapot")
    assert now is not None
    assert re.fullmatch(r"[0-9a-f]{12}", now["version"])
    assert now["version"] != first["version"]
    assert now["rules"][0]["matched"] >= 1
    assert now["reload_error"] is None
    assert now["loaded_at"].endswith("Z")
    # The journal names the version that answered, beside the rule.
    journal = client.get("/_mock/requests", params={"path": "/v1/vaults", "limit": 50}).json()
    marks = [e.get("scenario") for e in journal["data"] if e["rule"] == "brew"]
    assert {"name": "teapot", "version": now["version"], "rule": "brew"} in marks
    assert {"name": "teapot", "version": first["version"], "rule": "brew"} in marks
    assert f"loaded scenario teapot version {now['version']} (1 rule)" in served.run.output()


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("name: teapot\nrules: [\n", 3, "invalid YAML"),
        (TEAPOT.format(status=418).replace("status: 418", "status: loud"), 9, "status"),
        (
            TEAPOT.format(status=418) + "setup:\n  - legal_hold: {document: doc_nowhere}\n",
            11,
            "doc_nowhere",
        ),
    ],
    ids=["bad-yaml", "schema", "unknown-reference"],
)
def test_an_invalid_save_changes_nothing_and_shows_where(
    teapot: tuple[Served, Path], text: str, line: int, message: str
) -> None:
    served, scenario = teapot
    before = served.scenario("teapot")
    assert before is not None
    save(scenario, text, rename=True)
    error = until(lambda: (served.scenario("teapot") or {}).get("reload_error"), "the error shown")
    assert error["line"] == line, error
    assert message in error["message"], error
    assert error["at"].endswith("Z")
    assert served.vaults_status() == 418  # the previous version serves
    assert served.scenario("teapot")["version"] == before["version"]  # type: ignore[index]
    assert re.search(
        rf"{re.escape(str(scenario.resolve()))}:{line}: .*{message}", served.run.output()
    )
    page = served.client.get("/_mock/ui/scenarios").text
    assert "teapot.yaml" in page
    assert f"line {line}: " in page
    assert SHOWN in page
    banner = served.client.get("/_mock/ui").text  # the banner, on every page
    assert BANNER in banner
    assert f"Line {line}: " in banner

    save(scenario, TEAPOT.format(status=409), rename=True)  # the fix
    until(lambda: served.vaults_status() == 409, "the fixed file answering")
    assert served.scenario("teapot")["reload_error"] is None  # type: ignore[index]
    page = served.client.get("/_mock/ui/scenarios").text
    assert SHOWN not in page
    assert BANNER not in page


def test_a_saved_seed_resets_to_it_keeping_the_scenarios(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text(default_seed_path().read_text())
    scenario = tmp_path / "teapot.yaml"
    scenario.write_text(TEAPOT.format(status=418))
    with serve(tmp_path, "--seed", str(seed), "--scenario", str(scenario)) as served:
        client = served.client
        made = client.post("/v1/vaults", json={"name": "Gone after the reset", "region": "us"})
        assert made.status_code == 201
        assert client.get("/v1/vaults/vault_mock_us").json()["name"] == "Contracts (US)"

        save(seed, seed.read_text().replace("Contracts (US)", "Agreements (US)"), rename=True)
        until(
            lambda: client.get("/v1/vaults/vault_mock_us").json().get("name") == "Agreements (US)",
            "the new seed serving",
        )
        assert client.get(f"/v1/vaults/{made.json()['id']}").status_code == 404
        assert served.vaults_status() == 418  # the scenario is still loaded
        assert "seed_error" not in client.get("/_mock/health").json()

        save(seed, "version: 1\naccounts: 7\n")
        error = until(lambda: client.get("/_mock/health").json().get("seed_error"), "seed_error")
        assert error["line"] >= 1
        assert error["message"]
        assert client.get("/v1/vaults/vault_mock_us").json()["name"] == "Agreements (US)"
        assert re.search(rf"{re.escape(str(seed.resolve()))}:\d+: ", served.run.output())


def test_a_scenario_folder_loads_and_unloads_files_as_they_come_and_go(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "teapot.yaml").write_text(TEAPOT.format(status=418))
    with serve(tmp_path, "--scenario-dir", str(folder)) as served:
        assert served.vaults_status() == 418
        assert served.scenarios()["errors"] == []
        added = folder / "gone.yaml"
        save(added, TEAPOT.replace("teapot", "gone").format(status=410), rename=True)
        until(lambda: served.scenario("gone"), "the added file loaded")
        broken = folder / "broken.yaml"
        save(broken, "name: broken\nrules: 3\n")
        errors = until(lambda: served.scenarios()["errors"], "the new file's error")
        assert errors[0]["source"] == str(broken.resolve())
        assert errors[0]["line"] == 2
        assert served.scenario("broken") is None

        added.unlink()
        until(lambda: served.scenario("gone") is None, "the removed file unloaded")
        (folder / "teapot.yaml").unlink()
        until(lambda: served.vaults_status() == 200, "the last rule unloaded")
        broken.unlink()
        until(lambda: served.scenarios()["errors"] == [], "the removed file's error gone")


def test_a_durable_sandbox_replays_a_reload_in_its_place(tmp_path: Path) -> None:
    """The reload is logged as the control plane's request: after kill -9 and a restart, the
    new version serves with the counters it had, not those of a load at start."""
    scenario = tmp_path / "teapot.yaml"
    scenario.write_text(TEAPOT.format(status=418))
    server = DurableServer(tmp_path / "state", "--watch", "--scenario", str(scenario))
    client = server.start()
    try:
        assert [client.get("/v1/vaults").status_code for _ in range(2)] == [418, 418]
        save(scenario, TEAPOT.format(status=503), rename=True)
        until(lambda: client.get("/v1/vaults").status_code == 503, "the reload")
        served = client.get("/_mock/scenarios").json()["data"][0]
        server.kill()
        client = server.start()
        after = client.get("/_mock/scenarios").json()["data"][0]
        assert after["version"] == served["version"]
        assert after["rules"] == served["rules"]  # counted since the reload, as before
    finally:
        server.stop()


def test_json_logs_and_no_control_plane(tmp_path: Path) -> None:
    """With --log-format json every reload line is a JSON object; with --no-admin the files
    are still followed (the console is where the problems show)."""
    scenario = tmp_path / "teapot.yaml"
    scenario.write_text(TEAPOT.format(status=418))
    options = ("--scenario", str(scenario), "--log-format", "json", "--no-admin")
    with serve(tmp_path, *options) as served:
        assert served.vaults_status() == 418
        save(scenario, "name: teapot\nrules: 3\n", rename=True)
        until(lambda: '"event":"reload_error"' in served.run.output(), "the error line")
        assert served.vaults_status() == 418
        save(scenario, TEAPOT.format(status=409), rename=True)
        until(lambda: served.vaults_status() == 409, "the fixed file answering")
        events = [json.loads(line) for line in served.run.output().splitlines()]
        problem = next(e for e in events if e["event"] == "reload_error")
        assert problem["line"] == 2
        assert problem["file"] == str(scenario.resolve())
        assert problem["message"].startswith(f"{scenario.resolve()}:2: ")
        loads = [e for e in events if e["event"] == "reload" and e.get("version")]
        assert [e["rules"] for e in loads] == [1, 1]
        assert loads[-1]["version"] == hashlib.sha256(scenario.read_bytes()).hexdigest()[:12]


def test_a_scenario_folder_that_is_not_there_is_a_usage_error(tmp_path: Path) -> None:
    run = Run(tmp_path, "--port", "0", "--scenario-dir", str(tmp_path / "nowhere")).start()
    assert run.wait() == 2
    assert f"--scenario-dir {tmp_path / 'nowhere'}: no such folder" in run.errors()


def test_a_scenario_the_new_seed_cannot_hold_is_shown(tmp_path: Path) -> None:
    """A seed saved without what a loaded scenario's setup acts on: the seed is applied, the
    scenario no longer loads, and its file's problem is shown until it loads again."""
    seed = tmp_path / "seed.yaml"
    seed.write_text(default_seed_path().read_text())
    scenario = tmp_path / "held.yaml"
    scenario.write_text(
        TEAPOT.format(status=418) + "setup:\n  - legal_hold: {document: doc_mock_draft}\n"
    )
    with serve(tmp_path, "--seed", str(seed), "--scenario", str(scenario)) as served:
        assert served.vaults_status() == 418
        save(seed, seed.read_text().replace("doc_mock_draft", "doc_mock_rough"), rename=True)
        errors = until(lambda: served.scenarios()["errors"], "the scenario's problem")
        assert errors[0]["source"] == str(scenario.resolve())
        assert "doc_mock_draft" in errors[0]["message"]
        assert served.scenario("teapot") is None
        assert served.vaults_status() == 200


def test_a_durable_sandbox_catches_up_with_files_changed_while_it_was_stopped(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "teapot.yaml").write_text(TEAPOT.format(status=418))
    (folder / "gone.yaml").write_text(TEAPOT.replace("teapot", "gone").format(status=410))
    server = DurableServer(tmp_path / "state", "--watch", "--scenario-dir", str(folder))
    client = server.start()
    try:
        names = {s["name"] for s in client.get("/_mock/scenarios").json()["data"]}
        assert names == {"teapot", "gone"}
        made = client.post("/v1/vaults", json={"name": "Kept", "region": "us"}).json()["id"]
        server.stop()
        (folder / "gone.yaml").unlink()
        (folder / "teapot.yaml").write_text(TEAPOT.format(status=503))
        client = server.start()
        listed = client.get("/_mock/scenarios").json()["data"]
        assert [s["name"] for s in listed] == ["teapot"]
        version = hashlib.sha256((folder / "teapot.yaml").read_bytes()).hexdigest()[:12]
        assert listed[0]["version"] == version
        assert client.get("/v1/vaults").status_code == 503
        assert client.get(f"/v1/vaults/{made}").status_code == 200
    finally:
        server.stop()
