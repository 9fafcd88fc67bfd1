"""`MOCKSERVER_<OPTION>` for every option of `mockserver run`: a flag beats its variable, a
variable beats the default, and a bad value is a usage error that names the variable. Parsed
in-process here; tests/e2e/test_runtime.py starts real processes configured this way."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from mockserver.cli.environment import variable_of
from mockserver.cli.main import build_parser, main


def run_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            run: argparse.ArgumentParser = action.choices["run"]
            return run
    raise AssertionError("no run command")


def options() -> list[argparse.Action]:
    return [action for action in run_parser()._actions if action.option_strings[0] != "-h"]


def parse(argv: list[str], monkeypatch: pytest.MonkeyPatch, **env: str) -> argparse.Namespace:
    for name in list(os.environ):
        if name.startswith("MOCKSERVER_"):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return build_parser().parse_args(["run", *argv])


def test_every_option_of_run_has_a_variable_its_help_names() -> None:
    names = {action.dest: variable_of(action) for action in options()}
    assert names["admin_token"] == "MOCKSERVER_ADMIN_TOKEN"
    assert names["scenario"] == "MOCKSERVER_SCENARIO"
    assert names["clock"] == "MOCKSERVER_CLOCK"
    assert names["state_dir"] == "MOCKSERVER_STATE_DIR"
    assert names["no_admin"] == "MOCKSERVER_NO_ADMIN"
    for action in options():
        assert f"[env: {variable_of(action)}]" in (action.help or ""), action.dest


def test_variables_set_what_the_flags_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    args = parse(
        [],
        monkeypatch,
        MOCKSERVER_HOST="127.0.0.2",
        MOCKSERVER_PORT="9000",
        MOCKSERVER_CLOCK="frozen",
        MOCKSERVER_ADMIN_TOKEN="s3cret",
        MOCKSERVER_STATE_DIR="/tmp/state",
        MOCKSERVER_STATE_LOG_MAX="1.5",
        MOCKSERVER_IDEMPOTENCY_RECORDS="7",
        MOCKSERVER_SCENARIO=os.pathsep.join(["legal_hold", "mine.yaml"]),
        MOCKSERVER_NO_ADMIN="yes",
        MOCKSERVER_NO_RATE_LIMIT="TRUE",
        MOCKSERVER_STRICT_WEBHOOK_URLS="on",
        MOCKSERVER_TLS="0",
    )
    assert (args.host, args.port, args.clock, args.admin_token) == (
        "127.0.0.2",
        9000,
        "frozen",
        "s3cret",
    )
    assert (args.state_dir, args.state_log_max, args.idempotency_records) == (
        Path("/tmp/state"),
        1.5,
        7,
    )
    assert args.scenario == [Path("legal_hold"), Path("mine.yaml")]
    assert (args.no_admin, args.no_rate_limit, args.strict_webhook_urls, args.tls) == (
        True,
        True,
        True,
        False,
    )


def test_a_flag_beats_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    args = parse(
        ["--port", "8080", "--clock", "real", "--scenario", "other"],
        monkeypatch,
        MOCKSERVER_PORT="9000",
        MOCKSERVER_CLOCK="frozen",
        MOCKSERVER_SCENARIO=os.pathsep.join(["legal_hold", "mine.yaml"]),
    )
    assert (args.port, args.clock) == (8080, "real")  # the default's value, given as a flag
    assert args.scenario == [Path("other")]  # the flags replace the variable's list


def test_without_variables_the_defaults_stand(monkeypatch: pytest.MonkeyPatch) -> None:
    args = parse([], monkeypatch, MOCKSERVER_PORT="", MOCKSERVER_NO_ADMIN="")
    assert (args.host, args.port, args.clock, args.scenario) == ("127.0.0.1", 8080, "real", [])
    assert (args.no_admin, args.admin_token, args.state_dir) == (False, None, None)


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("MOCKSERVER_PORT", "eighty", "expected a port number from 0 to 65535"),
        ("MOCKSERVER_PORT", "70000", "expected a port number from 0 to 65535"),
        ("MOCKSERVER_CLOCK", "fast", "expected one of real, frozen"),
        ("MOCKSERVER_NO_ADMIN", "maybe", "expected 1, true, yes or on, or 0, false, no or off"),
        ("MOCKSERVER_RANDOM_SEED", "x", "expected a whole number"),
        ("MOCKSERVER_IDEMPOTENCY_RECORDS", "0", "expected a whole number of at least 1"),
        ("MOCKSERVER_LOG_LEVEL", "loud", "expected one of critical, error"),
    ],
)
def test_a_bad_value_is_a_usage_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    value: str,
    said: str,
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse([], monkeypatch, **{name: value})
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert f"mockserver run: error: {name}={value!r}: {said}" in error


def test_help_and_other_commands_do_not_read_the_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MOCKSERVER_PORT", "eighty")
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["run", "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # as words: the help wraps its lines
    assert "[env: MOCKSERVER_PORT]" in out
    assert "(default: 8080)" in out  # the default, not the variable's value
    assert build_parser().parse_args(["schema", "scenario"]).kind == "scenario"


def test_tls_dir_and_tls_cert_from_variables_exclude_each_other(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("MOCKSERVER_TLS_DIR", str(tmp_path))
    assert main(["run", "--port", "0", "--tls-cert", str(tmp_path / "cert.pem")]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--version"])
    assert exited.value.code == 0
    from mockserver import __version__

    assert capsys.readouterr().out == f"mockserver {__version__}\n"
