"""What `mockserver run` writes to stdout: its start-up and stop lines and, when asked, a line
per API request, as text for a person or as JSON objects, one a line, for a log collector.

`--log-format text` (the default) writes the start-up lines as they always were, `mockserver
stopped (SIGTERM)` at the end and, with `--log-requests`, one line per API request:

    14:03:07 GET /v1/documents/doc_x 404 0.9 ms req_9hX2... not_found: No such document: 'doc_x'

`--log-format json` writes every line as a JSON object, each request included:

    {"time": "2026-01-15T14:03:07Z", "event": "request", "request_id": "req_...",
     "method": "GET", "path": "/v1/documents/doc_x", "status": 404, "duration_ms": 0.912,
     "account": "acct_mock_us", "explain": "not_found: No such document: 'doc_x'"}

and every log record (uvicorn's, the mock's, asyncio's, any library's) and every reason not to
start or go on (`report_error`: a refused bind, a port taken, a bad seed) as JSON objects on
stderr. The log format applies from the moment the options are parsed (`use_log_format`), so
what is logged while the sandbox is built is formatted too.

A request line is written by an observer of the sandbox (`SandboxState.observe`), called once a
request is answered: with request lines off, none is installed and the request path does not
change. `time` is the mock clock's, as everything the server records is, so a replayed run
writes the same lines: a request's is the time it came in (its `Date`, on the clock of the
account sandbox that answered it), the start-up and stop lines' the server clock's then.
`/_mock` requests (the control plane, the inspector, health checks) have no line, as they have
no journal entry. With tracing on, a JSON request line carries its server span's `trace_id` and
`span_id` (hex, as OpenTelemetry writes them).
"""

from __future__ import annotations

import logging
import logging.config
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

import orjson

from mockserver.core import observed
from mockserver.core.clock import Clock, format_ts
from mockserver.engine.journal import Answered

FORMATS = ("text", "json")


@dataclass(frozen=True, slots=True)
class StartUp:
    """What the start-up lines say."""

    version: str
    addresses: list[str]  # bound, as `127.0.0.1:8080` or `[::1]:8080`
    scheme: str
    base_url: str  # where a client on this machine reaches it
    clock_mode: str
    clock_now: str | None  # a frozen clock's time, RFC 3339
    inspector: str | None  # None with --no-admin
    ca_bundle: str | None  # the test CA a --tls run made


class Console:
    """The lines of one run, in one format, to `out` (stdout)."""

    def __init__(self, format: str, clock: Clock, out: TextIO | None = None) -> None:
        self.json = format == "json"
        self.clock = clock  # the server's: the time of the start-up and stop lines
        self.out = out if out is not None else sys.stdout
        self.broken = False  # stdout was closed: nothing more is written

    def started(self, up: StartUp) -> None:
        listening = " and ".join(f"{up.scheme}://{address}" for address in up.addresses)
        at = f" at {up.clock_now}" if up.clock_now else ""
        inspector = up.inspector or "off (--no-admin)"
        message = (
            f"mockserver listening on {listening} (version {up.version}; "
            f"clock: {up.clock_mode}{at}; inspector: {inspector})"
        )
        if self.json:
            self._object(
                {
                    "event": "started",
                    "message": message,
                    "version": up.version,
                    "listening": [f"{up.scheme}://{address}" for address in up.addresses],
                    "api": f"{up.base_url}/v1",
                    "clock": {"mode": up.clock_mode, "now": up.clock_now},
                    "inspector": up.inspector,
                    "ca_bundle": up.ca_bundle,
                }
            )
            return
        curl = "curl"
        if up.ca_bundle is not None:
            curl = f"curl --cacert {up.ca_bundle}"
            self._line(
                f"mockserver test CA bundle: {up.ca_bundle} (server certificate and key beside it)"
            )
        base = up.base_url
        self._line(message)
        self._line(
            f"mockserver API: {base}/v1 (also {base}/us/v1 and {base}/eu/v1, and on the hosts "
            f"us.localhost and eu.localhost); "
            f"try: {curl} -H 'Authorization: Bearer sk_test_mock_full' {base}/v1/whoami"
        )

    def stopped(self, signal_name: str | None) -> None:
        """The last line: the server has shut down (on `signal_name`, when one stopped it)."""
        message = f"mockserver stopped ({signal_name})" if signal_name else "mockserver stopped"
        if self.json:
            self._object({"event": "stopped", "message": message, "signal": signal_name})
        else:
            self._line(message)

    def reload(self, text: str, fields: dict[str, Any]) -> None:
        """A watched file's reload (file, version, counts) or one of its problems
        (`file:line: message`)."""
        if self.json:
            self._object({**fields, "message": text})
        else:
            self._line(text)

    def request(self, answered: Answered) -> None:
        """One API request's line (an observer of the sandbox)."""
        request, response = answered.request, answered.response
        duration = round(answered.seconds * 1000, 3)
        fault = response.fault
        # A request a transport fault stopped before it ran was answered nothing.
        status = response.status if fault is None or fault.committed else None
        if self.json:
            fields = {
                "event": "request",
                "request_id": answered.request_id,
                "method": request.method,
                "path": request.path,
                "status": status,
                "duration_ms": duration,
                "account": answered.account,
                "explain": answered.explain,
            }
            if fault is not None:
                fields["fault"] = fault.kind
            traced = observed.current()  # the request's, while it is answered
            if traced is not None and traced.trace_id is not None:
                fields["trace_id"], fields["span_id"] = traced.trace_id, traced.span_id
            self._object(fields, answered.at)
            return
        line = (
            f"{format_ts(answered.at)[11:19]} {request.method} {request.path} "
            f"{'-' if status is None else status} {duration:.1f} ms {answered.request_id}"
        )
        self._line(f"{line} {answered.explain}" if answered.explain else line)

    def _object(self, fields: dict[str, Any], at: float | None = None) -> None:
        """One JSON line, its `time` that of `at` (the mock clock's now when not given)."""
        time = format_ts(self.clock.now() if at is None else at)
        self._line(orjson.dumps({"time": time, **fields}).decode())

    def _line(self, text: str) -> None:
        if self.broken:
            return
        try:
            self.out.write(text + "\n")
            self.out.flush()
        except (BrokenPipeError, ValueError):  # stdout closed: the server goes on serving
            self.broken = True


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object (`--log-format json`): time, level, logger, message."""

    def format(self, record: logging.LogRecord) -> str:
        # The process's own log records (not requests): stamped by `logging`, on the wall clock.
        at = datetime.fromtimestamp(record.created, UTC)
        fields: dict[str, Any] = {
            "time": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "event": "log",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            fields["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(fields).decode()


def report_error(format: str, message: str) -> None:
    """Say on stderr why the server cannot start or go on: `message` as it is for text, else
    each of its lines as a JSON object shaped as a log record of level error."""
    if format != "json":
        print(message, file=sys.stderr)
        return
    formatter = JsonFormatter()
    for line in message.splitlines():
        record = logging.makeLogRecord(
            {"name": "mockserver", "levelno": logging.ERROR, "levelname": "ERROR", "msg": line}
        )
        print(formatter.format(record), file=sys.stderr)


def use_log_format(format: str) -> None:
    """Format the process's log records as `format` says from now on, before uvicorn starts
    (it sets the same again); for json, Python's warnings go to the log too."""
    config = log_config(format)
    if config is not None:
        logging.config.dictConfig(config)
        logging.captureWarnings(True)


def log_config(format: str) -> dict[str, Any] | None:
    """uvicorn's `log_config` for `format`: None for text (uvicorn's own), else every record
    (uvicorn's, the mock's, and through the root logger anyone's) as a JSON object on
    stderr."""
    if format != "json":
        return None
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    quiet = {"handlers": ["stderr"], "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {"stderr": handler},
        "loggers": {"uvicorn": quiet, "mockserver": quiet, "uvicorn.access": {"handlers": []}},
        "root": {"handlers": ["stderr"], "level": "WARNING"},
    }
