"""The `mockserver` command: run (`cli/run.py`), validate, replay, schema, seed generate,
openapi, mcp (`cli/agents.py`), the webhook tools (trigger, listen, events resend:
`cli/webhook_tools.py`) and the fidelity commands (record, import, conform: `cli/fidelity.py`).

Load-time errors (a bad seed or scenario) are reported as `file:line: message`, and a missing
optional dependency as the extra that brings it; both are mapped to their exit status here, in
one place.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mockserver.cli import agents as agents_cli
from mockserver.cli import fidelity as fidelity_cli
from mockserver.cli import run as run_command
from mockserver.cli import scenarios as scenario_cli
from mockserver.cli import snapshot_seed, webhook_tools
from mockserver.cli.environment import EnvironmentParser
from mockserver.cli.run import RANDOM_HELP, SEED_HELP, rfc3339_time
from mockserver.cli.scenarios import Validator
from mockserver.core.config import DEFAULT_RANDOM_SEED, DEFAULT_START_TIME
from mockserver.core.errors import LoadError, MissingExtra
from mockserver.core.problems import block, problems_of
from mockserver.core.shipped import default_seed_path
from mockserver.core.version import __version__
from mockserver.openapi import document_bytes
from mockserver.seeds.loader import load_seed
from mockserver.serving.console import report_error

NEEDS_FAKER = "mockserver seed generate needs Faker: pip install 'mockserver[generate]'"


def build_parser() -> argparse.ArgumentParser:
    """Every command and option, each with help that states its default."""
    parser = argparse.ArgumentParser(
        prog="mockserver",
        description="A stateful sandbox of the Document, Vault, Workflow and Audit API, v1.",
        epilog="`mockserver COMMAND --help` describes one command.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"mockserver {__version__}",
        help="print the version and exit",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=EnvironmentParser
    )

    def command(
        name: str, summary: str, parent: Any = commands, details: str = ""
    ) -> argparse.ArgumentParser:
        """A subcommand: `summary` is its line in the list, and with `details` its help."""
        made: argparse.ArgumentParser = parent.add_parser(
            name,
            help=summary,
            description=f"{summary[0].upper()}{summary[1:]}. {details}".strip(),
        )
        return made

    run = command(
        "run",
        "start the server (until Ctrl-C or SIGTERM)",
        details="It prints its start-up line once it serves, and exits with status 0 on "
        "SIGTERM or SIGINT, 2 for a usage error or a bad seed or scenario (with its "
        "file:line: message), 3 when it cannot listen on the address. Every option can also "
        "be set by the environment variable its help names ([env: ...]); a flag beats its "
        "variable. A switch's variable takes 1, true, yes or on (or 0, false, no or off); "
        f"MOCKSERVER_SCENARIO takes a list separated by '{os.pathsep}'. A bad value is a "
        "usage error (status 2) naming the variable.",
    )
    assert isinstance(run, EnvironmentParser)
    run.read_environment(run_command.add_options(run))

    validate = command(
        "validate",
        "check seed and scenario files as loading them would",
        details="A scenario is also checked against the data of the seed (--seed), as "
        "run, replay and the control plane load it. A good file prints `FILE: ok (kind)`; "
        "a bad one prints every problem found on stderr, format and references alike, one "
        "`file:line: message` a line in the file's order. A rule that can never fire (it "
        "matches a key, path or webhook endpoint the seed lacks) is a warning, "
        "`file:line: warning: message`, which does not fail the file. Exit status 2 if any "
        "file is bad.",
    )
    validate.add_argument(
        "files",
        type=Path,
        nargs="+",
        metavar="FILE|NAME",
        help="a seed file, a scenario file, or a shipped scenario's name (legal_hold)",
    )
    validate.add_argument(
        "--seed",
        type=Path,
        metavar="FILE",
        help="the seed whose data scenarios are checked against, as loading them there would "
        "(default: the packaged seeds/default.yaml)",
    )

    replay = command(
        "replay",
        "run a scenario's steps on a fresh in-process server",
        details="The server starts from the seed with a frozen clock and only this scenario. "
        "Prints one line per step, then `N passed, N failed`. Exit status 0 if every step "
        "passed, 1 if one failed, 2 for a bad file.",
    )
    replay.add_argument(
        "file",
        type=Path,
        metavar="FILE|NAME",
        help="a scenario file, or a shipped scenario's name (legal_hold)",
    )
    replay.add_argument("--seed", type=Path, metavar="FILE", help=SEED_HELP)
    replay.add_argument(
        "--random-seed", type=int, default=DEFAULT_RANDOM_SEED, metavar="N", help=RANDOM_HELP
    )
    replay.add_argument(
        "--start-time",
        type=rfc3339_time,
        metavar="RFC3339",
        help=f"start of the frozen mock clock (default: {DEFAULT_START_TIME})",
    )

    schema = command("schema", "print a JSON Schema: the scenario or the snapshot file format")
    schema.add_argument(
        "kind", choices=("scenario", "snapshot"), help="which file format: scenario or snapshot"
    )

    seed = command("seed", "seed data tools (seed generate, seed from-snapshot)")
    seed_commands = seed.add_subparsers(dest="seed_command", required=True, metavar="COMMAND")
    generate = command(
        "generate",
        "print a generated seed as YAML (seeds/default.yaml is one); needs the generate extra "
        "(pip install 'mockserver[generate]')",
        seed_commands,
    )
    generate.add_argument(
        "--documents",
        type=int,
        default=60,
        metavar="N",
        help="generated documents in the sandbox of acct_mock_us (default: %(default)s)",
    )
    generate.add_argument(
        "--random-seed", type=int, default=DEFAULT_RANDOM_SEED, metavar="N", help=RANDOM_HELP
    )

    snapshot_seed.add_command(seed_commands, command)

    webhook_tools.add_commands(commands, command)
    agents_cli.add_command(commands, command)

    openapi = command("openapi", "print the OpenAPI 3.1 document of the mocked API")
    openapi.add_argument(
        "--seed",
        type=Path,
        metavar="FILE",
        help="the seed whose field limits to describe (default: the packaged seeds/default.yaml)",
    )
    fidelity_cli.add_commands(commands)  # record, import, conform
    return parser


def _openapi(seed_path: Path | None) -> int:

    seed = load_seed(seed_path or default_seed_path())
    sys.stdout.buffer.write(document_bytes(seed.limits))
    sys.stdout.flush()
    return 0


def _validate(files: Sequence[Path], seed: Path | None) -> int:
    """Check each file; every problem of a bad one on stderr, one `file:line: message` a line,
    then its warnings (`file:line: warning: message`), which do not change the exit status.
    A bad --seed stops it: scenarios cannot be checked against it."""

    validator = Validator(seed)
    if seed is not None:
        validator.sandbox()  # a bad --seed raises here, once
    status = 0
    for path in files:
        try:
            checked, kind = validator.check(path)
        except LoadError as error:
            print(block(problems_of(error)), file=sys.stderr)
            status = error.exit_code
        else:
            print(f"{checked}: ok ({kind})")
        for warning in validator.warnings:  # rules that can never fire: said, not refused
            print(warning, file=sys.stderr)
    return status


def _generate(args: argparse.Namespace) -> int:
    """Print a generated seed; MissingExtra without Faker, which only this command uses."""
    try:
        from mockserver.seeds.generate import generate_seed
    except ModuleNotFoundError as error:
        if error.name != "faker":
            raise
        raise MissingExtra(NEEDS_FAKER) from None

    sys.stdout.write(generate_seed(documents=args.documents, random_seed=args.random_seed))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "run":
            return run_command.run(args)
        if args.command == "validate":
            return _validate(args.files, args.seed)
        if args.command in ("replay", "schema"):
            if args.command == "schema":
                return scenario_cli.print_schema(args.kind)
            return scenario_cli.replay(
                args.file, seed=args.seed, random_seed=args.random_seed, start_time=args.start_time
            )
        if args.command == "openapi":
            return _openapi(args.seed)
        if args.command in webhook_tools.COMMANDS:
            return webhook_tools.run(args)
        if args.command == "mcp":
            return agents_cli.run(args)
        if args.command in fidelity_cli.COMMANDS:
            return fidelity_cli.run(args)
        if args.seed_command == "from-snapshot":
            return snapshot_seed.run(args.file, args.seed)
        return _generate(args)
    except (LoadError, MissingExtra) as error:
        report_error(args.log_format if args.command == "run" else "text", str(error))
        return error.exit_code
