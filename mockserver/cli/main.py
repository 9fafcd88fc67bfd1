"""The `mockserver` command: run, validate, replay, schema, seed generate, openapi.

Load-time errors (a bad seed or scenario) are reported as `file:line: message` and mapped to
their exit status here, in one place.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mockserver.core.compiled import request_path_compiled
from mockserver.core.config import DEFAULT_RANDOM_SEED, Settings
from mockserver.core.errors import LoadError

if TYPE_CHECKING:
    from mockserver.serving.certs import TlsFiles


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
    run.add_argument("--tls", action="store_true", help="HTTPS only, with a throwaway test CA")
    tls_source = run.add_mutually_exclusive_group()
    tls_source.add_argument("--tls-dir", type=Path, help="where --tls writes ca.pem and the cert")
    tls_source.add_argument(
        "--tls-cert", type=Path, help="your own cert chain (PEM); implies --tls"
    )
    run.add_argument("--tls-key", type=Path, help="the key of --tls-cert, if not in that file")

    validate = commands.add_parser("validate", help="check seed and scenario files")
    validate.add_argument("files", type=Path, nargs="+")

    replay = commands.add_parser("replay", help="run a scenario's steps on a fresh server")
    replay.add_argument("file", type=Path)
    replay.add_argument("--seed", type=Path, help="seed file (default: the packaged one)")
    replay.add_argument("--random-seed", type=int, default=DEFAULT_RANDOM_SEED)
    replay.add_argument("--start-time", help="RFC 3339 start of the frozen clock")

    schema = commands.add_parser("schema", help="print a JSON Schema (scenario)")
    schema.add_argument("kind", choices=("scenario",))

    seed = commands.add_parser("seed", help="seed data tools")
    seed_commands = seed.add_subparsers(dest="seed_command", required=True)
    generate = seed_commands.add_parser("generate", help="print a generated seed as YAML")
    generate.add_argument("--documents", type=int, default=60)
    generate.add_argument("--random-seed", type=int, default=DEFAULT_RANDOM_SEED)

    openapi = commands.add_parser("openapi", help="print the OpenAPI 3.1 document")
    openapi.add_argument("--seed", type=Path, help="seed whose field limits to describe")
    return parser


def _openapi(seed_path: Path | None) -> int:
    from mockserver.core.resources import default_seed_path
    from mockserver.openapi import document_bytes
    from mockserver.seeds.loader import load_seed

    seed = load_seed(seed_path or default_seed_path())
    sys.stdout.buffer.write(document_bytes(seed.limits))
    sys.stdout.flush()
    return 0


def _run(args: argparse.Namespace) -> int:
    import uvicorn

    from mockserver.serving.gc_tuning import PacedCollection, tune_for_serving
    from mockserver.serving.https_only import https_only
    from mockserver.serving.one_write import one_write_protocol
    from mockserver.web.app import create_app

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
    tune_for_serving(app.state.store)
    with contextlib.ExitStack() as cleanup:
        try:
            tls = _tls_files(args, cleanup)
            protocol = one_write_protocol()
            options = https_only(tls.server_context(), protocol) if tls else {"http": protocol}
        except (OSError, ValueError) as error:
            print(f"mockserver: cannot set up TLS: {error}", file=sys.stderr)
            return 2
        _print_banner(args, tls)
        uvicorn.run(
            PacedCollection(app),
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            access_log=False,
            date_header=False,  # the app sends `Date`, from the mock clock (http/exchange.py)
            **options,
        )
    return 0


def _tls_files(args: argparse.Namespace, cleanup: contextlib.ExitStack) -> TlsFiles | None:
    """The user's certificate, or a new test CA and certificate (in --tls-dir, else in a temporary
    folder removed at exit), or None for plain HTTP."""
    from mockserver.serving.certs import make_test_certs, user_certs

    if args.tls_key is not None and args.tls_cert is None:
        raise ValueError("--tls-key needs --tls-cert")
    if args.tls_cert is not None:
        return user_certs(args.tls_cert, args.tls_key)
    if not (args.tls or args.tls_dir):
        return None
    directory = args.tls_dir
    if directory is None:
        directory = Path(
            cleanup.enter_context(tempfile.TemporaryDirectory(prefix="mockserver-tls-"))
        )
        # uvicorn re-raises SIGTERM once it has shut down; exiting through Python instead of
        # dying by the signal lets the ExitStack remove the folder.
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, lambda signum, _: sys.exit(128 + signum))
    return make_test_certs(directory)


def _print_banner(args: argparse.Namespace, tls: TlsFiles | None) -> None:
    base = f"{'https' if tls else 'http'}://{args.host}:{args.port}"
    curl = "curl"
    if tls is not None and tls.ca_bundle is not None:
        curl = f"curl --cacert {tls.ca_bundle}"
        print(f"mockserver test CA bundle: {tls.ca_bundle} (server certificate and key beside it)")
    print(
        f"mockserver listening on {base}/v1 (also {base}/us/v1 and {base}/eu/v1, and on the hosts "
        f"us.localhost and eu.localhost); "
        f"try: {curl} -H 'Authorization: Bearer sk_test_mock_full' {base}/v1/whoami",
    )
    path = _COMPILED if request_path_compiled() else _PURE
    print(f"mockserver request path: {path}", flush=True)


_COMPILED = "compiled (mypyc)"
_PURE = (
    "pure Python (this install has no compiled wheel; see docs/development/compiled-build.md "
    "in the mockserver sources to build one)"
)


def _validate(files: Sequence[Path]) -> int:
    from mockserver.cli.scenarios import validate_file

    status = 0
    for path in files:
        try:
            kind = validate_file(path)
        except LoadError as error:
            print(error, file=sys.stderr)
            status = error.exit_code
        else:
            print(f"{path}: ok ({kind})")
    return status


def _generate(args: argparse.Namespace) -> int:
    from mockserver.seeds.generate import generate_seed

    sys.stdout.write(generate_seed(documents=args.documents, random_seed=args.random_seed))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "validate":
            return _validate(args.files)
        if args.command in ("replay", "schema"):
            from mockserver.cli import scenarios as scenario_cli

            if args.command == "schema":
                return scenario_cli.print_schema(args.kind)
            return scenario_cli.replay(
                args.file, seed=args.seed, random_seed=args.random_seed, start_time=args.start_time
            )
        if args.command == "openapi":
            return _openapi(args.seed)
        return _generate(args)
    except LoadError as error:
        print(error, file=sys.stderr)
        return error.exit_code
