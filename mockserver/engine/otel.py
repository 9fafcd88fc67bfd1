"""Traces with OpenTelemetry (the optional extra `mockserver[otel]`; imported only when the
environment asks for traces, `engine/tracing.py`).

A server span per client request, continuing the trace of its `traceparent` (the propagators
of `OTEL_PROPAGATORS`, W3C trace context by default), current while the request runs; a client
span per webhook attempt, a child of the span of the request that queued the delivery (its
first attempt runs in that request's context; retries keep it), whose HTTP request carries the
span's `traceparent`. The tracer provider is the app's own (never the global one), exporting
in batches to the exporters `OTEL_TRACES_EXPORTER` names (`otlp`: OTLP over HTTP, at
`OTEL_EXPORTER_OTLP_ENDPOINT`); the service is `OTEL_SERVICE_NAME`, else `mockserver`.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import Token
from importlib.metadata import entry_points
from typing import Any

from opentelemetry import context, propagate, trace
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from mockserver.core.observed import Observed
from mockserver.engine.request import HeaderLines
from mockserver.webhooks.deliveries import Delivery
from mockserver.webhooks.watch import outcome

DEFAULT_SERVICE = "mockserver"
PARENTS_KEPT = 10_000  # deliveries whose request's context is kept for their retries
# What `OTEL_TRACES_EXPORTER` names, as the exporters' entry points are called.
_ALIASES = {"otlp": "otlp_proto_http"}


def exporters(environ: Mapping[str, str]) -> list[SpanExporter]:
    """The exporters `OTEL_TRACES_EXPORTER` names (default `otlp`); ValueError for one that is
    not installed."""
    names = environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() or "otlp"
    made: list[SpanExporter] = []
    for name in filter(None, (part.strip() for part in names.split(","))):
        found = entry_points(group="opentelemetry_traces_exporter", name=_ALIASES.get(name, name))
        if not found:
            raise ValueError(f"OTEL_TRACES_EXPORTER names {name!r}, which is not installed")
        made.append(next(iter(found)).load()())
    return made


class Tracing:
    """The app's tracer: server spans for requests, client spans for webhook attempts."""

    def __init__(self, environ: Mapping[str, str], exporters: list[SpanExporter]) -> None:
        attributes: dict[str, Any] = {}
        named = environ.get("OTEL_SERVICE_NAME", "").strip()
        if not named and "service.name=" not in environ.get("OTEL_RESOURCE_ATTRIBUTES", ""):
            attributes[SERVICE_NAME] = DEFAULT_SERVICE
        self.provider = TracerProvider(resource=Resource.create(attributes))
        for exporter in exporters:
            self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self.provider.get_tracer("mockserver")
        self.parents: dict[str, context.Context] = {}  # by delivery id

    def request(self, method: str, headers: HeaderLines, observed: Observed) -> ServerSpan:
        """The server span of a client request, current until it ends."""
        carrier = {name.decode("latin-1"): value.decode("latin-1") for name, value in headers}
        parent = propagate.extract(carrier)
        span = self.tracer.start_span(method, context=parent, kind=SpanKind.SERVER)
        span.set_attribute("http.request.method", method)
        ids = span.get_span_context()
        observed.trace_id = format(ids.trace_id, "032x")
        observed.span_id = format(ids.span_id, "016x")
        return ServerSpan(span, context.attach(trace.set_span_in_context(span, parent)))

    # A webhook watch (`webhooks/watch.py`): a client span per attempt.
    def attempt(self, delivery: Delivery) -> ClientSpan:
        parents = self.parents
        parent = parents.get(delivery.id)
        if parent is None:
            parent = parents[delivery.id] = context.get_current()
            if len(parents) > PARENTS_KEPT:
                del parents[next(iter(parents))]
        span = self.tracer.start_span(
            f"POST webhook {delivery.event_type}", context=parent, kind=SpanKind.CLIENT
        )
        span.set_attributes(
            {
                "http.request.method": "POST",
                "url.full": delivery.url,
                "mockserver.delivery_id": delivery.id,
                "mockserver.event_type": delivery.event_type,
                "mockserver.attempt": len(delivery.attempts) + 1,
            }
        )
        carrier: dict[str, str] = {}
        propagate.inject(carrier, context=trace.set_span_in_context(span))
        return ClientSpan(span, list(carrier.items()))


class ServerSpan:
    """A request's span while it runs."""

    __slots__ = ("span", "token")

    def __init__(self, span: Span, token: Token[context.Context]) -> None:
        self.span = span
        self.token = token

    def end(self, method: str, status: int | None, observed: Observed) -> None:
        """End the span with what the request came to, and make its parent current again."""
        span = self.span
        route = observed.route
        if route is not None:
            span.update_name(f"{method} {route}")
            span.set_attribute("http.route", route)
        if status is not None:
            span.set_attribute("http.response.status_code", status)
            if status >= 500:
                span.set_status(Status(StatusCode.ERROR))
        for name, value in (
            ("mockserver.account", observed.account),
            ("mockserver.request_id", observed.request_id),
            ("mockserver.scenario.rule", observed.rule),
            ("mockserver.fault", observed.fault),
        ):
            if value is not None:
                span.set_attribute(name, value)
        span.end()
        context.detach(self.token)


class ClientSpan:
    """A webhook attempt's span while it runs."""

    __slots__ = ("headers", "span")

    def __init__(self, span: Span, headers: list[tuple[str, str]]) -> None:
        self.span = span
        self.headers = headers

    def done(self, status: int | None, error: str | None) -> None:
        span = self.span
        if status is not None:
            span.set_attribute("http.response.status_code", status)
        found = outcome(status, error)
        span.set_attribute("mockserver.webhook.outcome", found)
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, error))
            span.set_attribute("error.type", found)
        span.end()
