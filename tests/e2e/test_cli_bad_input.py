"""Bad input at the command line, typed as a new user would: each is a short message that
names the option (or the file and line) and what was expected, with its exit status, and no
traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mockserver.cli.main import main
from tests.support.cli import MOCKSERVER

EXPECTED_TIME = "expected an RFC 3339 time such as 2026-01-15T09:00:00Z"


def _clean_env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("MOCKSERVER_")}
    return {**base, **extra}


def test_run_with_a_start_time_that_is_no_time_is_a_usage_error() -> None:
    result = subprocess.run(
        [*MOCKSERVER, "run", "--port", "0", "--start-time", "yesterday"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(),
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"mockserver run: error: argument --start-time: {EXPECTED_TIME}, got 'yesterday'"
    )
    assert result.stdout == ""


def test_start_time_from_its_variable_is_checked_the_same_way() -> None:
    result = subprocess.run(
        [*MOCKSERVER, "run", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(MOCKSERVER_START_TIME="yesterday"),
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"mockserver run: error: MOCKSERVER_START_TIME='yesterday': {EXPECTED_TIME}, "
        "got 'yesterday'"
    )


@pytest.mark.parametrize("value", ["yesterday", "2026-13-01T00:00:00Z", "99999-01-01"])
def test_replay_with_a_start_time_that_is_no_time_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["replay", "legal_hold", "--start-time", value])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"mockserver replay: error: argument --start-time: {EXPECTED_TIME}, got {value!r}"
    )


def test_a_start_time_that_is_a_time_still_starts_the_clock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", "legal_hold", "--start-time", "2030-05-01T08:00:00Z"]) == 0


def test_a_top_level_scenario_error_has_no_empty_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("steps: []\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{path}:1: missing required field 'name'"]
