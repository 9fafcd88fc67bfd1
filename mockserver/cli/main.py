"""The `mockserver` command: run, validate, replay, schema, seed generate, openapi, the
webhook tools (trigger, listen, events resend: `cli/webhook_tools.py`) and the fidelity commands
(record, import, conform: `cli/fidelity.py`).

Load-time errors (a bad seed or scenario) are reported as `file:line: message` and mapped to
their exit status here, in one place.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mockserver import __version__
from mockserver.cli import fidelity as fidelity_cli
from mockserver.cli import snapshot_seed, webhook_tools
from mockserver.cli.bind import open_control_plane_refusal
from mockserver.cli.environment import EnvironmentParser, Repeated
from mockserver.core.compiled import request_path_compiled
from mockserver.core.config import (
    DEFAULT_RANDOM_SEED,
    DEFAULT_START_TIME,
    IDEMPOTENCY_RECORDS,
    STATE_LOG_MAX,
    Settings,
)
from mockserver.core.errors import LoadError

if TYPE_CHECKING:
    from mockserver.serving.certs import TlsFiles


_LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


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
        "start the server (until Ctrl-C)",
        details="A bad seed or scenario exits with status 2 and its file:line: message "
        "before anything is served. Every option can also be set by the environment variable "
        "its help names ([env: ...]); a flag beats its variable. A switch's variable takes 1, "
        "true, yes or on (or 0, false, no or off); MOCKSERVER_SCENARIO takes a list separated "
        f"by '{os.pathsep}'. A bad value is a usage error (status 2) naming the variable.",
    )
    assert isinstance(run, EnvironmentParser)
    run.read_environment(_run_options(run))

    validate = command(
        "validate",
        "check seed and scenario files as loading them would",
        details="A scenario is also checked against the data of the seed (--seed), as "
        "run, replay and the control plane load it. A good file prints `FILE: ok (kind)`; "
        "a bad one prints every problem found on stderr, format and references alike, one "
        "`file:line: message` a line in the file's order. Exit status 2 if any file is bad.",
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
    replay.add_argument("--seed", type=Path, metavar="FILE", help=_SEED_HELP)
    replay.add_argument(
        "--random-seed", type=int, default=DEFAULT_RANDOM_SEED, metavar="N", help=_RANDOM_HELP
    )
    replay.add_argument(
        "--start-time",
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
        "generate", "print a generated seed as YAML (seeds/default.yaml is one)", seed_commands
    )
    generate.add_argument(
        "--documents",
        type=int,
        default=60,
        metavar="N",
        help="generated documents in the sandbox of acct_mock_us (default: %(default)s)",
    )
    generate.add_argument(
        "--random-seed", type=int, default=DEFAULT_RANDOM_SEED, metavar="N", help=_RANDOM_HELP
    )

    snapshot_seed.add_command(seed_commands, command)

    webhook_tools.add_commands(commands, command)

    openapi = command("openapi", "print the OpenAPI 3.1 document of the mocked API")
    openapi.add_argument(
        "--seed",
        type=Path,
        metavar="FILE",
        help="the seed whose field limits to describe (default: the packaged seeds/default.yaml)",
    )
    fidelity_cli.add_commands(commands)  # record, import, conform
    return parser


def _run_options(run: argparse.ArgumentParser) -> list[argparse.Action]:
    """Add every option of `mockserver run`; each may also come from its variable."""
    return [
        run.add_argument(
            "--host",
            default="127.0.0.1",
            help="address to listen on; an address other than loopback needs --admin-token or "
            "--no-admin (default: %(default)s)",
        ),
        run.add_argument(
            "--port",
            type=_port,
            default=8080,
            help="port to listen on; 0 picks a free one, which the start-up line names "
            "(default: %(default)s)",
        ),
        run.add_argument("--seed", type=Path, metavar="FILE", help=_SEED_HELP),
        run.add_argument(
            "--scenario",
            type=Path,
            action=Repeated,
            default=[],
            metavar="FILE|NAME",
            help="load a scenario file, or a shipped scenario by name (legal_hold), before "
            "serving; repeat for more (default: none)",
        ),
        run.add_argument(
            "--clock",
            choices=("real", "frozen"),
            default="real",
            help="real: the mock clock follows the wall clock; frozen: it moves only when told "
            "(default: %(default)s)",
        ),
        run.add_argument(
            "--start-time",
            metavar="RFC3339",
            help=f"start of the mock clock (default: now for a real clock, {DEFAULT_START_TIME} "
            "for a frozen one)",
        ),
        run.add_argument(
            "--random-seed", type=int, default=DEFAULT_RANDOM_SEED, metavar="N", help=_RANDOM_HELP
        ),
        run.add_argument(
            "--no-rate-limit",
            action="store_true",
            help="send rate-limit headers but refuse nothing, for load tests (default: limits on)",
        ),
        run.add_argument(
            "--no-admin",
            action="store_true",
            help="turn off the /_mock control plane and inspector; GET /_mock/health stays "
            "(default: on)",
        ),
        run.add_argument(
            "--admin-token",
            metavar="TOKEN",
            help="require this X-Mock-Admin-Token on /_mock; needed to bind a --host other than "
            "loopback with the control plane on (default: none, /_mock is open)",
        ),
        run.add_argument(
            "--idempotency-records",
            type=_positive,
            default=IDEMPOTENCY_RECORDS,
            metavar="N",
            help="idempotent results kept per account and environment; beyond it the oldest is "
            "dropped, and a retry with its key runs again (default: %(default)s)",
        ),
        run.add_argument(
            "--state-dir",
            type=Path,
            metavar="DIR",
            help="keep the sandbox durable in DIR: every request answered survives a crash and "
            "a restart with the same DIR continues where it stopped; one process per DIR "
            "(default: none, the state lives in memory only)",
        ),
        run.add_argument(
            "--state-log-max",
            type=_megabytes,
            default=STATE_LOG_MAX // 2**20,
            metavar="MB",
            help="with --state-dir: once the log in DIR is larger, the state is written as a "
            "checkpoint and a new log started (default: %(default)s)",
        ),
        run.add_argument(
            "--strict-webhook-urls",
            action="store_true",
            help="refuse http:// webhook URLs, loopback ones too (default: http:// to loopback "
            "hosts is allowed)",
        ),
        run.add_argument(
            "--log-level",
            choices=_LOG_LEVELS,
            default="warning",
            help="uvicorn's log level (default: %(default)s)",
        ),
        run.add_argument(
            "--tls",
            action="store_true",
            help="serve HTTPS only, with a throwaway test CA (default: plain HTTP)",
        ),
        *_tls_options(run),
    ]


def _tls_options(run: argparse.ArgumentParser) -> list[argparse.Action]:
    tls_source = run.add_mutually_exclusive_group()
    return [
        tls_source.add_argument(
            "--tls-dir",
            type=Path,
            metavar="DIR",
            help="where --tls writes ca.pem and the certificate; implies --tls (default: a "
            "temporary folder removed at exit)",
        ),
        tls_source.add_argument(
            "--tls-cert",
            type=Path,
            metavar="PEM",
            help="serve your own certificate chain (PEM); implies --tls (default: none)",
        ),
        run.add_argument(
            "--tls-key",
            type=Path,
            metavar="PEM",
            help="the private key of --tls-cert (default: read from the --tls-cert file)",
        ),
    ]


def _port(text: str) -> int:
    """An argument that must be a TCP port number, 0 to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {text!r}")
    return value


def _positive(text: str) -> int:
    """An argument that must be a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _megabytes(text: str) -> float:
    """An argument that must be a positive number (of MiB)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of MiB, got {text!r}")
    return value


_SEED_HELP = "seed file to start from (default: the packaged seeds/default.yaml)"
_RANDOM_HELP = "seed of the generated ids and values (default: %(default)s)"


def _openapi(seed_path: Path | None) -> int:
    from mockserver.core.resources import default_seed_path
    from mockserver.openapi import document_bytes
    from mockserver.seeds.loader import load_seed

    seed = load_seed(seed_path or default_seed_path())
    sys.stdout.buffer.write(document_bytes(seed.limits))
    sys.stdout.flush()
    return 0


def _run(args: argparse.Namespace) -> int:
    refusal = open_control_plane_refusal(args.host, not args.no_admin, args.admin_token)
    if refusal is None:
        refusal = _tls_mistake(args)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2
    from mockserver.serving.gc_tuning import PacedCollection, tune_for_serving
    from mockserver.serving.server import protocol_options, serve
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
        idempotency_records=args.idempotency_records,
        state_dir=args.state_dir,
        state_log_max=max(1, int(args.state_log_max * 2**20)),
    )
    app = create_app(settings)
    tune_for_serving()
    with contextlib.ExitStack() as cleanup:
        try:
            tls = _tls_files(args, cleanup)
            options = protocol_options(tls)
        except (OSError, ValueError) as error:
            print(f"mockserver: cannot set up TLS: {error}", file=sys.stderr)
            return 2
        _print_banner(args, tls)
        serve(
            PacedCollection(app),
            options,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
        )
    return 0


def _tls_mistake(args: argparse.Namespace) -> str | None:
    """What is wrong with the TLS options taken together, or None."""
    if args.tls_key is not None and args.tls_cert is None:
        return "mockserver: cannot set up TLS: --tls-key needs --tls-cert"
    if args.tls_dir is not None and args.tls_cert is not None:  # one of them from a variable
        return (
            "mockserver: cannot set up TLS: --tls-dir (MOCKSERVER_TLS_DIR) and --tls-cert "
            "(MOCKSERVER_TLS_CERT) exclude each other"
        )
    return None


def _tls_files(args: argparse.Namespace, cleanup: contextlib.ExitStack) -> TlsFiles | None:
    """The user's certificate, or a new test CA and certificate (in --tls-dir, else in a temporary
    folder removed at exit), or None for plain HTTP."""
    from mockserver.serving.certs import make_test_certs, user_certs

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


def _validate(files: Sequence[Path], seed: Path | None) -> int:
    """Check each file; every problem of a bad one on stderr, one `file:line: message` a line.
    A bad --seed stops it: scenarios cannot be checked against it."""
    from mockserver.cli.scenarios import Validator

    validator = Validator(seed)
    if seed is not None:
        validator.sandbox()  # a bad --seed raises here, once
    status = 0
    for path in files:
        try:
            checked, kind = validator.check(path)
        except LoadError as error:
            print(error, file=sys.stderr)
            status = error.exit_code
        else:
            print(f"{checked}: ok ({kind})")
    return status


def _generate(args: argparse.Namespace) -> int:
    from mockserver.seeds.generate import generate_seed

    sys.stdout.write(generate_seed(documents=args.documents, random_seed=args.random_seed))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "validate":
            return _validate(args.files, args.seed)
        if args.command in ("replay", "schema"):
            from mockserver.cli import scenarios as scenario_cli

            if args.command == "schema":
                return scenario_cli.print_schema(args.kind)
            return scenario_cli.replay(
                args.file, seed=args.seed, random_seed=args.random_seed, start_time=args.start_time
            )
        if args.command == "openapi":
            return _openapi(args.seed)
        if args.command in webhook_tools.COMMANDS:
            return webhook_tools.run(args)
        if args.command in fidelity_cli.COMMANDS:
            return fidelity_cli.run(args)
        if args.seed_command == "from-snapshot":
            return snapshot_seed.run(args.file, args.seed)
        return _generate(args)
    except LoadError as error:
        print(error, file=sys.stderr)
        return error.exit_code
