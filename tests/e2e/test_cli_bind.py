"""`mockserver run` on an address other than loopback: the control plane needs a token.

Refusals are checked on the real command (exit 2 at once, before anything is built or bound).
That a guarded or admin-less run gets past the check is shown on an address this machine does
not have (TEST-NET-1, RFC 5737): the command goes on to bind it, and fails there (exit status
3), so no test opens a port beyond loopback."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import httpx
import pytest

from mockserver.engine.control_plane.origin_guard import is_loopback
from tests.support.cli import MOCKSERVER, free_port

UNASSIGNED = "192.0.2.1"  # TEST-NET-1: documentation only, never configured here


def run(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MOCKSERVER, "run", "--port", str(free_port()), *options],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "::", UNASSIGNED, "10.1.2.3", "example.com"])
def test_an_open_control_plane_on_a_non_loopback_host_exits_2_at_once(
    host: str, tmp_path: Path
) -> None:
    """The check comes before the seed is loaded or anything is built: a seed file that does
    not exist is never read, so its error is not the one reported."""
    missing = tmp_path / "missing.yaml"
    result = run("--host", host, "--seed", str(missing))
    assert result.returncode == 2, result.stderr
    assert "--admin-token" in result.stderr
    assert "--no-admin" in result.stderr
    assert host in result.stderr
    assert str(missing) not in result.stderr
    assert "listening" not in result.stdout


@pytest.mark.parametrize("guard", [["--admin-token", "s3cret"], ["--no-admin"]])
def test_a_guarded_or_admin_less_run_gets_past_the_check(guard: list[str]) -> None:
    result = run("--host", UNASSIGNED, *guard)
    assert "--admin-token" not in result.stderr
    assert f"cannot listen on {UNASSIGNED}:" in result.stderr  # on to the bind itself
    assert "listening" not in result.stdout
    assert result.returncode == 3


def test_a_loopback_host_other_than_the_default_serves_an_open_control_plane() -> None:
    port = free_port()
    process = subprocess.Popen(
        [*MOCKSERVER, "run", "--host", "127.0.0.2", "--port", str(port), "--clock", "frozen"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pause = threading.Event()
        response = None
        for _ in range(300):
            try:
                response = httpx.get(f"http://127.0.0.2:{port}/_mock/clock")
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                pause.wait(0.05)
        assert response is not None
        assert response.status_code == 200  # no token needed on loopback
        assert response.json()["mode"] == "frozen"
    finally:
        process.terminate()
        process.communicate(timeout=10)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("us.localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.168.1.20", False),
        ("::ffff:10.0.0.1", False),
        ("fe80::1", False),
        ("myhost.lan", False),
    ],
)
def test_which_hosts_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
