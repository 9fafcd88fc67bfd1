"""`mockserver run` as a container or a service manager runs it: configured by environment
variables, stopped by SIGTERM or SIGINT with exit status 0, checked by `GET /_mock/health`,
its start-up line printed once it serves and naming the port it got.

Each test starts a real process (tests/support/cli.py `Run`) on a free loopback port and waits
for what it checks (a line, an answer, an exit) with a generous deadline: the 5 s in which a
stop must complete is the documented contract, not something a busy machine is timed against.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import mockserver
from tests.support.cli import Run, free_port
from tests.support.keys import auth


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    """The runs a test starts, killed at its end if still running."""
    started: list[Run] = []
    yield started
    for run in started:
        run.kill()


def start(runs: list[Run], folder: Path, *options: str, **env: str) -> Run:
    folder.mkdir(exist_ok=True)
    run = Run(folder, *options, env=env).start()
    runs.append(run)
    return run


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_ends_the_run_with_status_0(
    runs: list[Run], tmp_path: Path, signum: int
) -> None:
    run = start(runs, tmp_path / "run", "--port", "0", "--clock", "frozen")
    _, port = run.listening()
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth()) as client:
        assert client.get("/v1/whoami").status_code == 200  # a keep-alive connection stays open
        assert run.stop(signum) == 0
    assert "Traceback" not in run.errors()


def test_a_durable_sandbox_stopped_by_sigterm_comes_back(runs: list[Run], tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = start(runs, tmp_path / "first", "--port", "0", "--state-dir", str(state))
    _, port = first.listening()
    made = httpx.post(
        f"http://127.0.0.1:{port}/v1/vaults", json={"name": "Kept", "region": "us"}, headers=auth()
    )
    assert made.status_code == 201, made.text
    assert first.stop(signal.SIGTERM) == 0
    second = start(runs, tmp_path / "second", "--port", "0", "--state-dir", str(state))
    _, port = second.listening()
    vault = httpx.get(f"http://127.0.0.1:{port}/v1/vaults/{made.json()['id']}", headers=auth())
    assert vault.json()["name"] == "Kept"
    assert second.stop(signal.SIGINT) == 0


def test_port_0_binds_a_free_port_and_the_start_up_line_names_it(
    runs: list[Run], tmp_path: Path
) -> None:
    run = start(runs, tmp_path / "run", "--port", "0", "--clock", "frozen")
    line, port = run.listening()
    assert port != 0
    assert f"mockserver listening on http://127.0.0.1:{port} " in line
    assert f"version {mockserver.__version__}" in line
    assert "clock: frozen at 2026-01-15T09:00:00Z" in line
    assert f"inspector: http://127.0.0.1:{port}/_mock/ui" in line
    assert httpx.get(f"http://127.0.0.1:{port}/v1/whoami", headers=auth()).status_code == 200
    assert run.stop() == 0


def test_a_port_that_cannot_be_bound_exits_3_and_names_it(runs: list[Run], tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = start(runs, tmp_path / "run", "--port", str(port))
        assert run.wait() == 3
    assert f"mockserver: cannot listen on 127.0.0.1:{port}: " in run.errors()
    assert "listening" not in run.output()


def test_variables_configure_the_run_and_a_flag_beats_its_variable(
    runs: list[Run], tmp_path: Path
) -> None:
    run = start(
        runs,
        tmp_path / "run",
        "--clock",
        "real",  # beats MOCKSERVER_CLOCK
        MOCKSERVER_PORT="0",
        MOCKSERVER_CLOCK="frozen",
        MOCKSERVER_ADMIN_TOKEN="s3cret",
        MOCKSERVER_SCENARIO="deprecated_endpoint",
    )
    line, port = run.listening()
    assert "clock: real;" in line
    base = f"http://127.0.0.1:{port}"
    assert httpx.get(f"{base}/_mock/clock").status_code == 401
    token = {"X-Mock-Admin-Token": "s3cret"}
    assert httpx.get(f"{base}/_mock/clock", headers=token).json()["mode"] == "real"
    loaded = httpx.get(f"{base}/_mock/scenarios", headers=token).json()["data"]
    assert [scenario["name"] for scenario in loaded] == ["deprecated_endpoint"]
    assert run.stop() == 0


def test_a_bad_variable_is_a_usage_error(runs: list[Run], tmp_path: Path) -> None:
    run = start(runs, tmp_path / "run", MOCKSERVER_PORT=str(free_port()), MOCKSERVER_CLOCK="fast")
    assert run.wait() == 2
    assert "mockserver run: error: MOCKSERVER_CLOCK='fast': expected one of real, frozen" in (
        run.errors()
    )
    assert "listening" not in run.output()


def test_health_needs_no_admin_token_and_writes_no_log(runs: list[Run], tmp_path: Path) -> None:
    state = tmp_path / "state"
    run = start(
        runs,
        tmp_path / "run",
        "--port",
        "0",
        "--clock",
        "frozen",
        "--state-dir",
        str(state),
        MOCKSERVER_ADMIN_TOKEN="s3cret",
    )
    _, port = run.listening()
    sizes = {path.name: path.stat().st_size for path in state.rglob("*") if path.is_file()}
    for _ in range(5):
        health = httpx.get(f"http://127.0.0.1:{port}/_mock/health")
        assert (health.status_code, health.json()) == (
            200,
            {"status": "ok", "version": mockserver.__version__},
        )
    assert {p.name: p.stat().st_size for p in state.rglob("*") if p.is_file()} == sizes
    assert httpx.get(f"http://127.0.0.1:{port}/_mock/clock").status_code == 401
    assert run.stop() == 0
