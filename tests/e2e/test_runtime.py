"""`mockserver run` as a container or a service manager runs it: configured by environment
variables, stopped by SIGTERM or SIGINT with exit status 0, checked by `GET /_mock/health`,
its start-up line printed once it serves and naming the port it got.

Each test starts a real process (tests/support/cli.py `Run`) on a free loopback port and waits
for what it checks (a line, an answer, an exit) with a generous deadline: the 5 s in which a
stop must complete is the documented contract, not something a busy machine is timed against.
"""

from __future__ import annotations

import json
import re
import signal
import socket
from collections.abc import Iterator
from datetime import datetime
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


def test_with_an_admin_token_the_start_up_line_names_the_inspectors_sign_in_page(
    runs: list[Run], tmp_path: Path
) -> None:
    run = start(runs, tmp_path / "run", "--port", "0", "--admin-token", "s3cret")
    line, port = run.listening()
    sign_in = f"http://127.0.0.1:{port}/_mock/ui/login"
    assert f"inspector: {sign_in})" in line
    page = httpx.get(sign_in)
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
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


def test_json_logs_are_one_object_a_line(runs: list[Run], tmp_path: Path) -> None:
    run = start(runs, tmp_path / "run", "--port", "0", "--clock", "frozen", "--log-format", "json")
    started = json.loads(run.wait_for_line('"event":"started"'))
    [base] = started["listening"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", base)
    assert started["clock"] == {"mode": "frozen", "now": "2026-01-15T09:00:00Z"}
    assert started["inspector"] == f"{base}/_mock/ui"
    assert started["version"] == mockserver.__version__
    with httpx.Client(base_url=base) as client:
        sent = [
            client.get("/v1/whoami", headers=auth()),
            client.get("/eu/v1/documents/doc_nowhere", headers=auth()),
            client.get("/v1/whoami"),
        ]
        client.get("/_mock/health")
        made = client.post("/_mock/accounts").json()
        key = {"Authorization": f"Bearer {made['keys']['full']}"}
        sent.append(client.post("/v1/vaults", json={"name": "V", "region": "us"}, headers=key))
    assert run.stop() == 0
    lines = [json.loads(line) for line in run.output().splitlines()]
    assert [line["event"] for line in lines] == ["started", *["request"] * 4, "stopped"]
    requests = lines[1:-1]
    for line, response in zip(requests, sent, strict=True):
        assert line["request_id"] == response.headers["x-request-id"]
        assert line["method"] == response.request.method
        assert line["path"] == response.request.url.path
        assert line["status"] == response.status_code
        assert isinstance(line["duration_ms"], float)
        assert line["duration_ms"] >= 0
        assert datetime.fromisoformat(line["time"]).tzinfo is not None
    assert [line["account"] for line in requests] == [
        "acct_mock_us",
        "acct_mock_us",
        None,
        made["id"],
    ]
    assert requests[1]["explain"].startswith("not_found: ")
    assert requests[2]["explain"].startswith("authentication: ")
    assert lines[-1]["signal"] == "SIGTERM"


def test_text_logs_a_line_per_request_when_asked(runs: list[Run], tmp_path: Path) -> None:
    quiet = start(runs, tmp_path / "quiet", "--port", "0")
    _, port = quiet.listening()
    assert httpx.get(f"http://127.0.0.1:{port}/v1/whoami", headers=auth()).status_code == 200
    loud = start(runs, tmp_path / "loud", "--port", "0", MOCKSERVER_LOG_REQUESTS="1")
    _, loud_port = loud.listening()
    answer = httpx.get(f"http://127.0.0.1:{loud_port}/v1/documents/doc_nowhere", headers=auth())
    line = loud.wait_for_line(" GET /v1/documents/doc_nowhere 404 ")
    assert answer.headers["x-request-id"] in line
    assert line.endswith("not_found: No such document: 'doc_nowhere'")
    assert quiet.stop() == 0
    assert loud.stop(signal.SIGINT) == 0
    assert not [line for line in quiet.output().splitlines() if " /v1/whoami " in line]
    assert quiet.output().splitlines()[-1] == "mockserver stopped (SIGTERM)"
    assert loud.output().splitlines()[-1] == "mockserver stopped (SIGINT)"


def test_a_request_a_transport_fault_broke_is_logged_with_its_fault(
    runs: list[Run], tmp_path: Path
) -> None:
    run = start(runs, tmp_path / "run", "--port", "0", "--log-format", "json")
    started = json.loads(run.wait_for_line('"event":"started"'))
    [base] = started["listening"]
    scenario = (
        "name: f\nrules:\n  - name: r\n    match: {path: /v1/whoami}\n    respond: {fault: reset}\n"
    )
    with httpx.Client(base_url=base, headers=auth()) as client:
        assert client.post("/_mock/scenarios", json={"yaml": scenario}).status_code == 201
        with pytest.raises(httpx.ReadError):
            client.get("/v1/whoami")
    assert run.stop() == 0
    [line] = [json.loads(line) for line in run.output().splitlines() if '"request"' in line]
    assert (line["status"], line["fault"]) == (None, "reset")
    assert line["explain"].startswith("scenario: Transport fault of scenario rule 'r'")
