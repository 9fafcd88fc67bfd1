"""The fidelity side of the command line: `record`, `import`, `conform`.

`main.py` registers these commands with `add_commands` and hands their arguments to `run`;
the work is in `mockserver.fidelity`.
"""

from __future__ import annotations

import argparse
import sys
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
    """Run one of the commands of `COMMANDS`; its exit status."""
    if args.command == "record":
        return _record(args)
    if args.command == "import":
        return _import(args)
    return _conform(args)


def _record(args: argparse.Namespace) -> int:
    from mockserver.fidelity.proxy import RecordingProxy, open_recording
    from mockserver.serving.server import serve_as_is

    if not args.upstream.startswith(("http://", "https://")):
        print(
            f"mockserver: --upstream must be an http:// or https:// URL, got {args.upstream!r}",
            file=sys.stderr,
        )
        return 2
    try:
        out = open_recording(args.out)
    except OSError as error:
        print(f"mockserver: cannot open {args.out}: {error.strerror}", file=sys.stderr)
        return 2
    with out:
        print(
            f"mockserver recording http://{args.host}:{args.port} -> {args.upstream} "
            f"into {args.out}",
            flush=True,
        )
        serve_as_is(
            RecordingProxy(args.upstream, out),
            host=args.host,
            port=args.port,
            log_level="warning",
        )
    return 0


def _import(args: argparse.Namespace) -> int:
    """Write the scenario, then check it as `mockserver validate` would (against the seed
    the replay starts from): a scenario the mock would refuse is reported, exit status 1."""
    from mockserver.cli.scenarios import Validator
    from mockserver.core.errors import LoadError
    from mockserver.fidelity.importer import scenario_yaml
    from mockserver.fidelity.recording import read
    from mockserver.fidelity.setup import SeedIds

    exchanges = read(args.recording)  # a bad file raises RecordingError: exit 2
    name = args.name or _scenario_name(args.scenario_out)
    text = scenario_yaml(
        exchanges, name=name, key=args.key, source=args.recording.name, seed=SeedIds(args.seed)
    )
    try:
        args.scenario_out.write_text(text, "utf-8")
    except OSError as error:
        print(f"mockserver: cannot write {args.scenario_out}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        Validator(args.seed).check(args.scenario_out)
    except LoadError as error:
        print(f"mockserver: the scenario written does not load:\n{error}", file=sys.stderr)
        return 1
    print(f"{args.scenario_out}: {len(exchanges)} exchanges imported")
    return 0


def _scenario_name(path: Path) -> str:
    import re

    name = re.sub(r"[^a-z0-9_-]+", "_", path.stem.lower()).strip("_-")[:64]
    return name or "imported"


def _conform(args: argparse.Namespace) -> int:
    from mockserver.fidelity import reports
    from mockserver.fidelity.conform import (
        UpstreamUnreachable,
        conform,
        fresh_mock,
        upstream_client,
    )
    from mockserver.fidelity.tour import tour_path
    from mockserver.scenarios.loader import load_scenario

    if not args.upstream.startswith(("http://", "https://")):
        print(
            f"mockserver: --upstream must be an http:// or https:// URL, got {args.upstream!r}",
            file=sys.stderr,
        )
        return 2
    scenario = load_scenario(args.steps or tour_path())  # a bad file raises: exit 2
    upstream = upstream_client(args.upstream, args.timeout)
    with upstream, fresh_mock(scenario) as mock:
        try:
            outcomes = conform(
                scenario,
                upstream=upstream,
                upstream_key=args.key,
                mock=mock,
                out=lambda outcome: print("\n".join(reports.lines(outcome)), flush=True),
            )
        except UpstreamUnreachable as error:
            print(f"mockserver: the upstream did not answer: {error}", file=sys.stderr)
            return 2
    print(reports.summary(outcomes))
    try:
        if args.json is not None:
            args.json.write_text(reports.as_json(outcomes, args.upstream), "utf-8")
        if args.junit is not None:
            args.junit.write_bytes(reports.as_junit(outcomes, args.upstream))
    except OSError as error:
        print(f"mockserver: cannot write the report: {error}", file=sys.stderr)
        return 2
    return 1 if reports.drifted(outcomes) else 0
