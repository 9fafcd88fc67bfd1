"""Whether the server traces its requests with OpenTelemetry, decided by the SDK's own
environment variables, and the tracer when it does (`engine/otel.py`).

Tracing is on when the optional extra `mockserver[otel]` is installed and the environment asks
for an exporter: `OTEL_TRACES_EXPORTER` names one (not `none`), or an OTLP endpoint is set
(`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and `OTEL_SDK_DISABLED` is
not true. Otherwise nothing of OpenTelemetry is imported, and no answer or delivery changes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mockserver.engine.otel import Tracing

log = logging.getLogger("mockserver")

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def wanted(environ: Mapping[str, str]) -> bool:
    """Whether `environ` asks for traces."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter:
        return exporter != "none"
    return any(environ.get(name, "").strip() for name in _ENDPOINTS)


def start(environ: Mapping[str, str]) -> Tracing | None:
    """The tracer `environ` asks for, or None (not asked for; or the extra is missing, which is
    logged once, as is an exporter that cannot be made)."""
    if not wanted(environ):
        return None
    try:
        # The optional heavy part: imported only when the environment asks for traces.
        from mockserver.engine import otel
    except ImportError as error:
        log.warning(
            "traces are asked for (OTEL_* variables) but OpenTelemetry is not installed "
            "(pip install 'mockserver[otel]'): %s",
            error,
        )
        return None
    try:
        return otel.Tracing(environ, otel.exporters(environ))
    except ValueError as error:
        log.warning("traces are off: %s", error)
        return None
