"""What `make image` is made of, checked without a container engine: the Containerfile's
promises, the entry point's choice of command, and the wheel tags the context is built for.
The image itself is tested by tests/image (`make image-test`)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.build import ROOT

BASE = {
    "implementation": "cpython",
    "python": "3.11",
    "soabi": "cpython-311-x86_64-linux-gnu",
    "machine": "x86_64",
    "glibc": "2.36",
}


@pytest.fixture(scope="module")
def context() -> ModuleType:
    spec = importlib.util.spec_from_file_location("context", ROOT / "container" / "context.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_containerfile_says_what_the_image_promises() -> None:
    text = (ROOT / "Containerfile").read_text(encoding="utf-8")
    assert re.search(r"^ARG BASE=\S*python:3\.12-slim$", text, re.MULTILINE)
    assert re.search(r"^FROM \$\{BASE\}$", text, re.MULTILINE)
    assert re.search(r"^USER mockserver$", text, re.MULTILINE)
    assert re.search(r"^EXPOSE 8080$", text, re.MULTILINE)
    assert re.search(r"^STOPSIGNAL SIGTERM$", text, re.MULTILINE)
    assert "--no-index" in text
    healthcheck = text.split("HEALTHCHECK", 1)[1].split("\nENTRYPOINT", 1)[0]
    assert "/_mock/health" in healthcheck
    assert "urllib.request" in healthcheck


@pytest.fixture
def entrypoint(tmp_path: Path) -> list[str]:
    """The entry point with a stand-in `mockserver` on PATH that prints its arguments."""
    fake = tmp_path / "mockserver"
    fake.write_text('#!/bin/sh\nfor arg in "$@"; do echo "$arg"; done\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return ["sh", str(ROOT / "container" / "entrypoint.sh")]


def run(entrypoint: list[str], tmp_path: Path, *args: str, **env: str) -> list[str]:
    variables = {"PATH": f"{tmp_path}:{os.environ['PATH']}", **env}
    done = subprocess.run(
        [*entrypoint, *args], capture_output=True, text=True, env=variables, check=True
    )
    return done.stdout.splitlines()


def test_the_entrypoint_runs_the_server_on_the_image_address(
    entrypoint: list[str], tmp_path: Path
) -> None:
    assert run(entrypoint, tmp_path) == ["run", "--host", "0.0.0.0", "--port", "8080"]
    served = run(
        entrypoint,
        tmp_path,
        "--clock",
        "frozen",
        MOCKSERVER_HOST="0.0.0.0",
        MOCKSERVER_PORT="9000",
        MOCKSERVER_ADMIN_TOKEN="t0ken",
    )
    assert served == [
        "run", "--admin-token", "t0ken", "--host", "0.0.0.0", "--port", "9000", "--clock", "frozen"
    ]  # fmt: skip
    assert run(entrypoint, tmp_path, "run", "--no-admin")[-1] == "--no-admin"
    assert run(entrypoint, tmp_path, "mockserver", "run")[0] == "run"


def test_the_entrypoint_runs_other_commands_as_given(entrypoint: list[str], tmp_path: Path) -> None:
    assert run(entrypoint, tmp_path, "validate", "s.yaml") == ["validate", "s.yaml"]
    assert run(entrypoint, tmp_path, "mockserver", "schema", "snapshot") == ["schema", "snapshot"]
    assert run(entrypoint, tmp_path, "--version") == ["--version"]


def test_the_wheel_tags_of_a_glibc_base(context: ModuleType) -> None:
    tags = context.platforms(BASE)
    assert tags[0] == "manylinux_2_36_x86_64"
    assert "manylinux_2_5_x86_64" in tags
    assert {"manylinux1_x86_64", "manylinux2010_x86_64", "manylinux2014_x86_64"} <= set(tags)
    assert tags[-1] == "linux_x86_64"
    assert "manylinux_2_37_x86_64" not in tags


def test_the_probe_describes_the_python_that_runs_it(context: ModuleType) -> None:
    """The script `probe` runs in the base, run here by this Python."""
    done = subprocess.run(
        [sys.executable, "-c", context.PROBE], capture_output=True, text=True, check=True
    )
    described = json.loads(done.stdout)
    assert described["python"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert described["implementation"] == sys.implementation.name
    assert described["soabi"] == sysconfig.get_config_var("SOABI")
