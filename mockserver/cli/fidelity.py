"""The fidelity side of the command line: `record`, `import`, `conform`.

`main.py` registers these commands with `add_commands` and hands their arguments to `run`;
what they do is in `fidelity_commands.py`, over `mockserver.fidelity`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Final

COMMANDS: Final = ("record", "import", "conform")


def add_commands(commands: Any) -> None:
    """Add `record`, `import` and `conform` to the subcommands of `mockserver`."""
    record = commands.add_parser(
        "record",
        help="run a recording proxy in front of a server of the API",
        description="Run a recording proxy in front of a server of the API (the real service, "
        "or another mock). Every request is forwarded to the upstream and answered with its "
        "answer, unchanged; each exchange is appended to FILE.jsonl, one JSON object a line, "
        "with secrets redacted before anything is written. Runs until Ctrl-C.",
    )
    record.add_argument(
        "--upstream",
        required=True,
        metavar="BASE_URL",
        help="the root of the server to forward to, without /v1, e.g. https://api.example.com; "
        "paths and queries are kept (no default)",
    )
    record.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="FILE.jsonl",
        help="the recording, appended to; created if missing (no default)",
    )
    record.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    record.add_argument(
        "--port", type=int, default=8081, help="port to listen on (default: %(default)s)"
    )

    imported = commands.add_parser(
        "import",
        help="turn a recording into a scenario file",
        description="Turn a recording into a scenario file: its setup recreates what the "
        "recording read but did not create, its steps replay the requests and expect the "
        "recorded statuses and stable fields. `mockserver replay` then tells whether the mock "
        "does what the upstream did. Exit status 2 for a bad recording.",
    )
    imported.add_argument("recording", type=Path, metavar="FILE.jsonl", help="a recording")
    imported.add_argument(
        "--scenario-out",
        required=True,
        type=Path,
        metavar="FILE.yaml",
        help="where to write the scenario (no default)",
    )
    imported.add_argument(
        "--name", help="the scenario's name (default: from the file name of --scenario-out)"
    )
    imported.add_argument(
        "--seed",
        type=Path,
        metavar="FILE",
        help="the seed the replay starts from: what it holds is not recreated in the setup "
        "(default: the packaged seeds/default.yaml)",
    )
    imported.add_argument(
        "--key",
        default="sk_test_mock_full",
        help="the mock's key for requests made with a key the seed does not have "
        "(default: %(default)s)",
    )

    conform = commands.add_parser(
        "conform",
        help="compare the answers of a server of the API with the mock's",
        description="Run the same steps against the upstream and a fresh in-process mock and "
        "compare each pair of answers: status, documented headers, JSON shape, enum values, id "
        "prefixes, timestamp formats, error type and param. Prints one line per step and "
        "`N same, N drifted`. Exit status 0 with no drift, 1 with drift, 2 for bad arguments "
        "or an upstream that does not answer.",
    )
    conform.add_argument(
        "--upstream",
        required=True,
        metavar="BASE_URL",
        help="the root of the server to compare with, without /v1, e.g. "
        "https://api.example.com (no default)",
    )
    conform.add_argument(
        "--key",
        required=True,
        help="the upstream's API key for steps that name no key (no default)",
    )
    conform.add_argument(
        "--steps",
        type=Path,
        metavar="FILE.yaml",
        help="a scenario whose steps to run; its setup and rules are loaded into the mock only "
        "(default: the shipped tour of every endpoint and error status)",
    )
    conform.add_argument(
        "--json", type=Path, metavar="OUT.json", help="also write a JSON report (default: none)"
    )
    conform.add_argument(
        "--junit",
        type=Path,
        metavar="OUT.xml",
        help="also write a JUnit XML report (default: none)",
    )
    conform.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long to wait for each upstream answer (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    """Run one of the commands of `COMMANDS`; its exit status. Their code, and the fidelity
    package with its HTTP client's command-line extras, is imported only by these commands."""
    from mockserver.cli import fidelity_commands

    if args.command == "record":
        return fidelity_commands.run_record(args)
    if args.command == "import":
        return fidelity_commands.run_import(args)
    return fidelity_commands.run_conform(args)
