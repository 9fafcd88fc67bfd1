"""The `mockserver` command: run, validate, seed generate.

Load-time errors (a bad seed or scenario) are reported as `file:line: message` and mapped to
their exit status here, in one place.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from mockserver.config import DEFAULT_RANDOM_SEED, Settings
from mockserver.errors import LoadError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mockserver", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="start the server")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8080)
    run.add_argument("--seed", type=Path, help="seed file (default: the packaged default.yaml)")
    run.add_argument("--scenario", type=Path, action="append", default=[], help="scenario file")
    run.add_argument("--clock", choices=("real", "frozen"), default="real")
    run.add_argument("--start-time", help="RFC 3339 start of the mock clock")
    run.add_argument("--random-seed", type=int, default=DEFAULT_RANDOM_SEED)
    run.add_argument("--no-rate-limit", action="store_true", help="send headers, refuse nothing")
    run.add_argument("--no-admin", action="store_true", help="turn off the /_mock control plane")
    run.add_argument("--admin-token", help="require X-Mock-Admin-Token on /_mock")
    run.add_argument("--strict-webhook-urls", action="store_true")
    run.add_argument("--log-level", default="warning")

    validate = commands.add_parser("validate", help="check seed and scenario files")
    validate.add_argument("files", type=Path, nargs="+")

    seed = commands.add_parser("seed", help="seed data tools")
    seed_commands = seed.add_subparsers(dest="seed_command", required=True)
    generate = seed_commands.add_parser("generate", help="print a generated seed as YAML")
    generate.add_argument("--documents", type=int, default=60)
    generate.add_argument("--random-seed", type=int, default=DEFAULT_RANDOM_SEED)
    return parser


def _run(args: argparse.Namespace) -> int:
    import uvicorn

    from mockserver.http.app import create_app

    settings = Settings(
        seed_path=args.seed,
        scenario_paths=tuple(args.scenario),
        clock_mode=args.clock,
        start_time=args.start_time,
        random_seed=args.random_seed,
        rate_limit=not args.no_rate_limit,
        admin=not args.no_admin,
        admin_token=args.admin_token,
        strict_webhook_urls=args.strict_webhook_urls,
    )
    app = create_app(settings)
    base = f"http://{args.host}:{args.port}"
    print(
        f"mockserver listening on {base}/v1 (also {base}/us/v1 and {base}/eu/v1); "
        f"try: curl -H 'Authorization: Bearer sk_test_mock_full' {base}/v1/whoami",
        flush=True,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0


def _validate(files: Sequence[Path]) -> int:
    from mockserver.seeds import load_seed

    status = 0
    for path in files:
        try:
            load_seed(path)
        except LoadError as error:
            print(error, file=sys.stderr)
            status = error.exit_code
        else:
            print(f"{path}: ok")
    return status


def _generate(args: argparse.Namespace) -> int:
    from mockserver.seedgen import generate_seed

    sys.stdout.write(generate_seed(documents=args.documents, random_seed=args.random_seed))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "validate":
            return _validate(args.files)
        return _generate(args)
    except LoadError as error:
        print(error, file=sys.stderr)
        return error.exit_code
