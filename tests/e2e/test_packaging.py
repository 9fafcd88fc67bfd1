"""What installs: a source install runs as Python and finds its default seed without a
checkout; the compiled wheel is a platform wheel with the request path compiled; `make run`
serves the sources without compiling anything, and `make wheel` without a C compiler says so."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.metadata import distribution
from pathlib import Path

import httpx
import pytest

from tests.support.build import ROOT, compiled_modules
from tests.support.cli import free_port


@pytest.mark.pure_only  # builds from the checkout, which the compiled run does not have
def test_wheel_ships_the_seed_and_finds_it(tmp_path: Path) -> None:
    # the build hook is off unless HATCH_BUILD_HOOKS_ENABLE says otherwise: a plain source build
    env = {k: v for k, v in os.environ.items() if k != "HATCH_BUILD_HOOKS_ENABLE"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )
    (wheel,) = tmp_path.glob("mockserver-*.whl")
    # pure Python, for every platform: nothing compiled
    assert wheel.name.endswith("-py3-none-any.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert "mockserver/_data/seeds/default.yaml" in archive.namelist()
        # the inspector's templates and static files are package data, not Python modules
        assert "mockserver/web/inspector/templates/base.html" in archive.namelist()
        assert "mockserver/web/inspector/static/inspector.js" in archive.namelist()
        assert not [n for n in archive.namelist() if n.endswith(tuple(EXTENSION_SUFFIXES))]
        archive.extractall(site)
    probe = (
        "from mockserver.core.resources import default_seed_path; "
        "from mockserver.seeds.loader import load_seed; p = default_seed_path(); "
        "from mockserver.core.compiled import request_path_compiled; "
        "load_seed(p); print(p); print(request_path_compiled())"
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
    seed, compiled = result.stdout.split()
    assert Path(seed).is_relative_to(site)
    assert compiled == "False"


def test_the_installed_mockserver_is_the_build_this_run_tests(expect_compiled: bool) -> None:
    """On the sources, the checkout installed editable; in the compiled run, the wheel that
    `make wheel` built with the documented command, installed in its own venv."""
    installed = distribution("mockserver")
    if not expect_compiled:
        direct_url = json.loads(installed.read_text("direct_url.json") or "{}")
        assert direct_url.get("dir_info", {}).get("editable") is True
        return
    wheel = installed.read_text("WHEEL") or ""
    assert "Root-Is-Purelib: false" in wheel.splitlines()
    tags = [line.removeprefix("Tag: ") for line in wheel.splitlines() if line.startswith("Tag: ")]
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert tags
    assert all(tag.startswith(f"{python}-{python}-") for tag in tags)
    files = {str(path) for path in installed.files or ()}
    extensions = {name for name in files if name.endswith(tuple(EXTENSION_SUFFIXES))}
    # one extension module per compiled module, and mypyc's shared library beside the package
    modules = {name.split(".")[0].replace("/", ".") for name in extensions if "/" in name}
    assert modules == set(compiled_modules())
    assert [name for name in extensions if "/" not in name and "__mypyc" in name]
    assert "mockserver/_data/seeds/default.yaml" in files


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


@pytest.mark.pure_only  # runs make in the checkout: once is enough (seconds, in a new venv)
def test_make_run_serves_the_sources_without_compiling(tmp_path: Path) -> None:
    """`make run` in a new venv installs the sources editable and serves them: no wheel, no
    compiler (CC names none that works), no compiled build tried."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    command = ["make", "--no-print-directory", "-C", str(ROOT), "run", f"PORT={port}"]
    command += [f"VENV={tmp_path / 'venv'}", "CC=/nonexistent"]
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
    assert "mockserver request path: pure Python (this install has no compiled extension" in output
    assert "HATCH_BUILD_HOOKS_ENABLE" not in output  # no compiled build was tried
    assert "pip install --quiet -e ." in output  # the sources, editable
    assert "mockserver stopped (SIGTERM)" in output


@pytest.mark.pure_only  # runs make in the checkout
def test_make_wheel_without_a_c_compiler_says_so_and_builds_nothing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    stamp = tmp_path / ".wheel"  # a stamp of its own: the checkout's may be up to date
    command = ["make", "--no-print-directory", "-C", str(ROOT), "wheel", f"WHEEL={stamp}"]
    command += [f"VENV={tmp_path / 'venv'}", "CC=/nonexistent"]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode != 0
    assert (
        "make wheel: no working C compiler (/nonexistent does not build against Python's headers)"
    ) in result.stdout
    assert "HATCH_BUILD_HOOKS_ENABLE" not in result.stdout
    assert not stamp.exists()
