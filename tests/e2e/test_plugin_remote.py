"""The pytest plugin against a server that already runs (`MOCKSERVER_URL`, or
`--mockserver-url`, with `MOCKSERVER_ADMIN_TOKEN`): a consumer suite using `mock_server`,
`mock_client` and `mock_account` passes under `pytest -n 2`, starts no server of its own,
resets nothing shared, and each test keeps to its own account."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.support.cli import MOCKSERVER, free_port

pytest_plugins = ["pytester"]

TOKEN = "remote-suite-token"

CONSUMER = """
import pytest

from mockserver.testing.remote_session import SharedServerError


@pytest.mark.parametrize("n", range(6))
def test_its_own_account(mock_account, n):
    with mock_account.client() as api:
        assert api.get("/v1/vaults").json()["data"] == []
        api.post("/v1/vaults", json={"name": f"v{n}", "region": "us"})
        assert [v["name"] for v in api.get("/v1/vaults").json()["data"]] == [f"v{n}"]
    mock_account.advance(60)
    mock_account.assert_requested("POST", "/v1/vaults", times=1)


def test_mock_server_is_the_running_one_and_is_not_reset(mock_server, pytestconfig):
    assert mock_server.url == pytestconfig.getoption("--mockserver-url").rstrip("/")
    with mock_server.client() as api:
        assert api.get("/v1/whoami").json()["account_id"] == "acct_mock_us"
    with pytest.raises(SharedServerError, match="mock_account"):
        mock_server.reset()
    with pytest.raises(SharedServerError):
        mock_server.app


def test_mock_client_goes_over_the_socket(mock_client):
    assert mock_client.get("/v1/whoami").status_code == 200
    mock_client.assert_requested("GET", "/v1/whoami")


@pytest.mark.mock_scenario("down.yaml")
def test_a_scenario_marker_loads_into_the_account(mock_account, mock_server):
    with mock_account.client() as mine, mock_server.client() as seeded:
        assert mine.get("/v1/vaults").status_code == 503
        assert seeded.get("/v1/vaults").status_code == 200
"""

SCENARIO = """\
name: down
rules:
  - name: vaults-down
    match: {method: GET, path: /v1/vaults}
    respond: {status: 503}
"""


@pytest.fixture
def running(tmp_path: Path) -> Iterator[str]:
    """`mockserver run` with an admin token, on a free port; its URL."""
    port = free_port()
    command = [*MOCKSERVER, "run", "--port", str(port), "--clock", "frozen"]
    with (tmp_path / "server.txt").open("wb") as errors:
        process = subprocess.Popen(
            [*command, "--admin-token", TOKEN], stdout=subprocess.DEVNULL, stderr=errors
        )
        url = f"http://127.0.0.1:{port}"
        pause = threading.Event()
        try:
            for _ in range(1500):  # 30 s for the server to answer
                # A socket, not httpx (see `_admin_get`).
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert process.poll() is None, (tmp_path / "server.txt").read_text()
                    pause.wait(0.02)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)


def _admin_get(url: str) -> Any:
    """GET with the admin token, by the standard library: pytester restores sys.modules after
    each test, so httpx's lazily imported parts imported here would be new module objects for
    the next test of this process, whose httpcore errors httpx would no longer recognize."""
    request = urllib.request.Request(url, headers={"X-Mock-Admin-Token": TOKEN})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_a_consumer_suite_runs_against_a_running_server_under_xdist(
    pytester: pytest.Pytester, running: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    (pytester.path / "down.yaml").write_text(SCENARIO)
    monkeypatch.setenv("MOCKSERVER_URL", running)
    monkeypatch.setenv("MOCKSERVER_ADMIN_TOKEN", TOKEN)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "-n", "2")
    result.assert_outcomes(passed=9)
    # Every test's account was removed; the suite's requests were made on this very server.
    assert _admin_get(f"{running}/_mock/accounts")["data"] == []
    answered = {"path": "/v1/whoami", "status": "200"}
    journal = _admin_get(f"{running}/_mock/requests?{urlencode(answered)}")
    assert len(journal["data"]) == 2  # mock_server's and mock_client's


def test_a_wrong_admin_token_says_what_to_set(
    pytester: pytest.Pytester, running: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_one="def test_one(mock_account):\n    pass\n")
    monkeypatch.setenv("MOCKSERVER_ADMIN_TOKEN", "wrong")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--mockserver-url={running}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*set MOCKSERVER_ADMIN_TOKEN to its admin token*"])


def test_no_server_there_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_one="def test_one(mock_server):\n    pass\n")
    url = f"http://127.0.0.1:{free_port()}"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--mockserver-url={url}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*No mockserver answers at {url}*"])
