"""What installs: the wheel is pure Python for every platform and finds its default seed
without a checkout; `make run` installs the sources editable and serves them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import httpx

from tests.support.build import ROOT
from tests.support.cli import free_port


def test_wheel_ships_the_seed_and_finds_it(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("mockserver-*.whl")
    # pure Python, for every platform: no extension module
    assert wheel.name.endswith("-py3-none-any.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert "mockserver/_data/seeds/default.yaml" in archive.namelist()
        # a shipped scenario's `$schema=../schemas/...` line resolves inside the wheel too
        assert "mockserver/_data/schemas/scenario.schema.json" in archive.namelist()
        # the inspector's templates and static files are package data, not Python modules
        assert "mockserver/web/inspector/templates/base.html" in archive.namelist()
        assert "mockserver/web/inspector/static/inspector.js" in archive.namelist()
        assert not [n for n in archive.namelist() if n.endswith(tuple(EXTENSION_SUFFIXES))]
        archive.extractall(site)
    probe = (
        "from mockserver.core.shipped import default_seed_path; "
        "from mockserver.seeds.loader import load_seed; p = default_seed_path(); "
        "load_seed(p); print(p)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=True,
    )
    assert Path(result.stdout.strip()).is_relative_to(site)


def _whoami(port: int, make: subprocess.Popen[bytes], seconds: float) -> int:
    """The status of GET /v1/whoami on `port` once the server answers, within `seconds`."""
    deadline = time.monotonic() + seconds
    pause = threading.Event()
    while time.monotonic() < deadline:
        assert make.poll() is None, "make run ended before it served"
        try:
            return httpx.get(
                f"http://127.0.0.1:{port}/v1/whoami",
                headers={"Authorization": "Bearer sk_test_mock_full"},
            ).status_code
        except httpx.TransportError:
            pause.wait(0.2)
    raise AssertionError(f"make run did not serve within {seconds} s")


def test_make_run_serves_the_sources_editable(tmp_path: Path) -> None:
    """`make run` in a new venv installs the sources editable and serves them."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    command = ["make", "--no-print-directory", "-C", str(ROOT), "run", f"PORT={port}"]
    command += [f"VENV={tmp_path / 'venv'}"]
    log = tmp_path / "make-run.log"
    with open(log, "wb") as out:
        # its own session: make and the server it starts stop together, by this group's id
        make = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    try:
        status = _whoami(port, make, seconds=300)
    finally:
        os.killpg(make.pid, signal.SIGTERM)
        make.wait(timeout=30)
    output = log.read_text()
    assert status == 200
    assert "pip install --quiet -e ." in output  # the sources, editable
    assert "mockserver stopped (SIGTERM)" in output
