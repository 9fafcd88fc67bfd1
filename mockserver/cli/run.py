"""`mockserver run`: its options, and serving until a stop signal.

The order is the one a user sees: the options are checked (exit status 2), the port is bound
(exit status 3 when it cannot be: `serving/listen.py`), the sandbox is built (a bad seed or
scenario is exit status 2, reported by `cli/main.py`), and once uvicorn serves, the start-up
line names the address it listens on. SIGTERM and SIGINT stop it with status 0.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from mockserver.cli.bind import open_control_plane_refusal
from mockserver.cli.environment import Repeated
from mockserver.core.clock import format_ts, parse_ts
from mockserver.core.config import (
    DEFAULT_RANDOM_SEED,
    DEFAULT_START_TIME,
    IDEMPOTENCY_RECORDS,
    STATE_LOG_MAX,
    Settings,
)
from mockserver.core.version import __version__
from mockserver.serving.certs import TlsFiles, make_test_certs, user_certs
from mockserver.serving.console import (
    Console,
    StartUp,
    log_config,
    report_error,
    use_log_format,
)
from mockserver.serving.gc_tuning import PacedCollection, tune_for_serving
from mockserver.serving.listen import StopSignals, listen, shown, stop_signals
from mockserver.serving.server import protocol_options, serve
from mockserver.web.app import create_app

if TYPE_CHECKING:
    from starlette.applications import Starlette

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
CANNOT_LISTEN = 3  # the exit status when the address and port cannot be bound
SEED_HELP = "seed file to start from (default: the packaged seeds/default.yaml)"
RANDOM_HELP = "seed of the generated ids and values (default: %(default)s)"


def add_options(run: argparse.ArgumentParser) -> list[argparse.Action]:
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
        run.add_argument("--seed", type=Path, metavar="FILE", help=SEED_HELP),
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
            "--scenario-dir",
            type=Path,
            metavar="DIR",
            help="load every *.yaml scenario file in DIR; with --watch, files added to or "
            "removed from DIR later are loaded and unloaded (default: none)",
        ),
        run.add_argument(
            "--watch",
            action="store_true",
            help="follow saves of the seed and scenario files: a scenario saved valid replaces "
            "its previous version within a second, keeping the data, the clock and the "
            "journal; a seed saved valid resets to it; a file saved invalid changes nothing "
            "and its problems are shown (default: off)",
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
            type=rfc3339_time,
            metavar="RFC3339",
            help=f"start of the mock clock (default: now for a real clock, {DEFAULT_START_TIME} "
            "for a frozen one)",
        ),
        run.add_argument(
            "--random-seed", type=int, default=DEFAULT_RANDOM_SEED, metavar="N", help=RANDOM_HELP
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
            "--no-metrics",
            action="store_true",
            help="turn off GET /_mock/metrics and the counting behind it (default: on, with the "
            "control plane)",
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
            "--log-format",
            choices=("text", "json"),
            default="text",
            help="text: lines for a person; json: every line on stdout a JSON object, one "
            "per API request included, and log records as JSON on stderr (default: %(default)s)",
        ),
        run.add_argument(
            "--log-requests",
            action="store_true",
            help="with --log-format text, a line per API request on stdout: method, path, "
            "status, duration, request id, and why an error answer was refused (default: off; "
            "json always has them)",
        ),
        run.add_argument(
            "--log-level",
            choices=LOG_LEVELS,
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


def rfc3339_time(text: str) -> str:
    """An argument that must be an RFC 3339 time (`--start-time`), kept as written."""
    try:
        format_ts(parse_ts(text))
    except (ValueError, OverflowError, OSError):
        raise argparse.ArgumentTypeError(
            f"expected an RFC 3339 time such as {DEFAULT_START_TIME}, got {text!r}"
        ) from None
    return text


def _megabytes(text: str) -> float:
    """An argument that must be a positive number (of MiB)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of MiB, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """Serve until SIGTERM or SIGINT (0); 2 for options that do not go together, 3 when the
    address cannot be bound. A bad seed or scenario raises its LoadError. Every line written
    from here on honours `--log-format`."""
    use_log_format(args.log_format)
    refusal = open_control_plane_refusal(args.host, not args.no_admin, args.admin_token)
    if refusal is None:
        refusal = _tls_mistake(args) or _watch_mistake(args)
    if refusal is not None:
        report_error(args.log_format, refusal)
        return 2

    try:
        sockets = listen(args.host, args.port)
    except OSError as error:
        where = f"[{args.host}]" if ":" in args.host else args.host
        why = error.strerror or str(error)
        report_error(args.log_format, f"mockserver: cannot listen on {where}:{args.port}: {why}")
        return CANNOT_LISTEN
    with contextlib.ExitStack() as cleanup, stop_signals() as stop:
        for sock in sockets:
            cleanup.callback(sock.close)
        status = _serve(args, sockets, stop, cleanup)
    return status


def _serve(
    args: argparse.Namespace,
    sockets: list[socket.socket],
    stop: StopSignals,
    cleanup: contextlib.ExitStack,
) -> int:
    """Build the sandbox, then serve it on `sockets` until a stop signal."""

    app = create_app(_settings(args))
    try:
        tls = _tls_files(args, cleanup)
        options = protocol_options(tls)
    except (OSError, ValueError) as error:
        report_error(args.log_format, f"mockserver: cannot set up TLS: {error}")
        return 2
    console = Console(args.log_format, app.state.store.clock)
    live = app.state.sandbox.live
    if live is not None:
        live.report_to(console.reload)

    def started() -> None:
        console.started(_start_up(app, sockets, tls))
        if args.log_requests or args.log_format == "json":
            app.state.sandbox.observe(console.request)

    logging = log_config(args.log_format)
    if logging is not None:
        options = {**options, "log_config": logging}
    tune_for_serving()
    serve(PacedCollection(app), options, sockets, stop, started, log_level=args.log_level)
    console.stopped(None if stop.requested is None else signal.Signals(stop.requested).name)
    return 0


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(
        seed_path=args.seed,
        scenario_paths=tuple(args.scenario),
        scenario_dir=args.scenario_dir,
        watch=args.watch,
        clock_mode=args.clock,
        start_time=args.start_time,
        random_seed=args.random_seed,
        rate_limit=not args.no_rate_limit,
        admin=not args.no_admin,
        admin_token=args.admin_token,
        metrics=not args.no_metrics,
        strict_webhook_urls=args.strict_webhook_urls,
        idempotency_records=args.idempotency_records,
        state_dir=args.state_dir,
        state_log_max=max(1, int(args.state_log_max * 2**20)),
    )


def _watch_mistake(args: argparse.Namespace) -> str | None:
    """What is wrong with --scenario-dir and --watch, or None."""
    if args.scenario_dir is not None and not args.scenario_dir.is_dir():
        return f"mockserver: --scenario-dir {args.scenario_dir}: no such folder"
    if args.watch and args.no_admin and args.state_dir is not None:
        return (
            "mockserver: --watch with --state-dir needs the control plane (a reload is "
            "logged as its request): leave out --no-admin, and set --admin-token instead"
        )
    return None


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
    if args.tls_cert is not None:
        return user_certs(args.tls_cert, args.tls_key)
    if not (args.tls or args.tls_dir):
        return None
    directory = args.tls_dir
    if directory is None:
        directory = Path(
            cleanup.enter_context(tempfile.TemporaryDirectory(prefix="mockserver-tls-"))
        )
    return make_test_certs(directory)


def _start_up(app: Starlette, sockets: list[socket.socket], tls: TlsFiles | None) -> StartUp:
    """What the start-up lines say, once the server serves: where it listens, the version,
    the clock, the inspector, which build runs."""

    scheme = "https" if tls else "http"
    addresses = [shown(sock) for sock in sockets]
    base = f"{scheme}://{_reachable(addresses[0])}"
    clock = app.state.store.clock
    return StartUp(
        version=__version__,
        addresses=addresses,
        scheme=scheme,
        base_url=base,
        clock_mode=clock.mode,
        clock_now=format_ts(clock.now()) if clock.mode == "frozen" else None,
        inspector=_inspector(app, base),
        ca_bundle=None if tls is None or tls.ca_bundle is None else str(tls.ca_bundle),
    )


def _inspector(app: Starlette, base: str) -> str | None:
    """The inspector's URL a browser opens: its sign-in page when it needs the admin token."""
    settings = app.state.settings
    if not settings.admin:
        return None
    return f"{base}/_mock/ui/login" if settings.admin_token else f"{base}/_mock/ui"


def _reachable(address: str) -> str:
    """`address` as a client on this machine reaches it: a wildcard bind by loopback."""
    return address.replace("0.0.0.0:", "127.0.0.1:").replace("[::]:", "[::1]:")
