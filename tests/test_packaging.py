"""An installed mockserver finds its default seed without a checkout."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.pure_only  # builds from the checkout, which the compiled run does not have
def test_wheel_ships_the_seed_and_finds_it(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("mockserver-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert "mockserver/_data/seeds/default.yaml" in archive.namelist()
        # the inspector's templates and static files are package data, not Python modules
        assert "mockserver/web/inspector/templates/base.html" in archive.namelist()
        assert "mockserver/web/inspector/static/inspector.js" in archive.namelist()
        archive.extractall(site)
    probe = (
        "from mockserver.core.resources import default_seed_path; "
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
