"""The command line explains itself: every command and option has help stating its default."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from mockserver.cli.main import build_parser, main


def commands(
    parser: argparse.ArgumentParser, prefix: str = "mockserver"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser, with the words that reach it."""
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, f"{prefix} {name}")


def options() -> Iterator[tuple[str, argparse.Action, argparse.ArgumentParser]]:
    for where, parser in commands(build_parser()):
        for action in parser._actions:
            skipped = argparse._HelpAction | argparse._VersionAction | argparse._SubParsersAction
            if not isinstance(action, skipped):
                yield where, action, parser


def test_every_option_of_every_command_has_help_with_its_default() -> None:
    seen = 0
    for where, action, parser in options():
        seen += 1
        name = "/".join(action.option_strings) or action.dest
        text = parser._get_formatter()._expand_help(action) if action.help else ""
        assert text.strip(), f"{where} {name} has no help"
        if action.option_strings:
            assert "default" in text, f"{where} {name} does not state its default: {text}"
            if action.default not in (None, False, [], argparse.SUPPRESS):
                assert str(action.default) in text, f"{where} {name}: {text}"
    assert seen > 20


def test_every_command_has_a_one_line_description(capsys: pytest.CaptureFixture[str]) -> None:
    for where, parser in commands(build_parser()):
        assert parser.description, f"{where} has no description"
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    listed = {line.split()[0]: line for line in out.splitlines() if line.startswith("    ")}
    for name in ("run", "validate", "replay", "schema", "seed", "openapi"):
        assert len(listed[name].split()) > 2, f"`{name}` is listed without a description"


def test_run_help_states_the_port_and_clock_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "--port PORT port to listen on; 0 picks a free one, which the start-up line names " in out
    )
    assert "(default: 8080) [env: MOCKSERVER_PORT]" in out
    assert "(default: real)" in out
    assert "--random-seed N seed of the generated ids and values (default: 20261122)" in out
