"""Traces: `mockserver run` with the OpenTelemetry SDK's variables exports a server span per
request and a client span per webhook attempt over OTLP/HTTP, to a receiver in the test that
decodes them with opentelemetry-proto; without the variables, nothing of OpenTelemetry is
imported. The tests of the export need the otel extra (and skip without it)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.engine.tracing import wanted
from mockserver.testing.receiver import WebhookReceiver
from tests.support.cli import MOCKSERVER, free_port
from tests.support.durable import DurableServer
from tests.support.keys import auth
from tests.support.scenarios import load
from tests.support.webhooks import register

DEADLINE = 30.0  # seconds for a span to arrive (the exporter sends every 50 ms)
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"

needs_otel = pytest.mark.skipif(
    importlib.util.find_spec("opentelemetry.sdk") is None
    or importlib.util.find_spec("opentelemetry.exporter.otlp.proto.http") is None,
    reason="the otel extra is not installed (pip install 'mockserver[otel]')",
)


@dataclass(frozen=True)
class Span:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    service: str


class OtlpReceiver:
    """An OTLP/HTTP trace receiver on 127.0.0.1: every span exported to it."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.condition = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.take(self.path, body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def take(self, path: str, body: bytes) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        assert path == "/v1/traces"
        request = ExportTraceServiceRequest.FromString(body)
        spans = []
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans.append(
                        Span(
                            span.name,
                            span.kind,
                            span.trace_id.hex(),
                            span.span_id.hex(),
                            span.parent_span_id.hex(),
                            {a.key: _value(a.value) for a in span.attributes},
                            resource["service.name"],
                        )
                    )
        with self.condition:
            self.spans += spans
            self.condition.notify_all()

    def wait_for(self, count: int, **attributes: Any) -> list[Span]:
        """The spans with `attributes`, once there are `count` of them."""

        def found() -> list[Span]:
            return [
                span
                for span in self.spans
                if all(span.attributes.get(k) == v for k, v in attributes.items())
            ]

        with self.condition:
            if not self.condition.wait_for(lambda: len(found()) >= count, DEADLINE):
                raise AssertionError(f"spans {attributes} did not arrive: {self.spans}")
            return found()


def _value(value: Any) -> Any:
    return getattr(value, value.WhichOneof("value"))


@pytest.fixture
def otlp() -> Iterator[OtlpReceiver]:
    receiver = OtlpReceiver()
    receiver.thread.start()
    yield receiver
    receiver.server.shutdown()
    receiver.server.server_close()


@pytest.fixture
def traced(otlp: OtlpReceiver, tmp_path: Path) -> Iterator[tuple[httpx.Client, Path]]:
    """A `mockserver run` exporting its traces to `otlp`; a client, and its stdout's file."""
    port = free_port()
    environ = {
        **os.environ,
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint,
        "OTEL_BSP_SCHEDULE_DELAY": "50",
    }
    environ.pop("OTEL_SERVICE_NAME", None)
    out = tmp_path / "stdout.jsonl"
    with out.open("wb") as stdout:
        process = subprocess.Popen(
            [*MOCKSERVER, "run", "--port", str(port), "--clock", "frozen", "--log-format", "json"],
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            env=environ,
        )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth(), timeout=30) as c:
            for _ in range(int(DEADLINE / 0.05)):
                try:
                    c.get("/_mock/health")
                    break
                except httpx.TransportError:
                    assert process.poll() is None, "the server exited"
                    threading.Event().wait(0.05)
            yield c, out
    finally:
        process.terminate()
        process.wait(timeout=10)


@needs_otel
def test_a_request_is_a_server_span_continuing_its_traceparent(
    traced: tuple[httpx.Client, Path], otlp: OtlpReceiver
) -> None:
    client, out = traced
    traceparent = f"00-{TRACE}-{PARENT}-01"
    response = client.get("/v1/documents/doc_mock_draft", headers={"traceparent": traceparent})
    assert response.status_code == 200
    request_id = response.headers["x-request-id"]
    [span] = otlp.wait_for(1, **{"mockserver.request_id": request_id})
    assert span.trace_id == TRACE
    assert span.parent_span_id == PARENT
    assert span.kind == 2  # SERVER
    assert span.name == "GET /v1/documents/{id}"
    assert span.service == "mockserver"
    assert span.attributes == {
        "http.request.method": "GET",
        "http.route": "/v1/documents/{id}",
        "http.response.status_code": 200,
        "mockserver.account": "acct_mock_us",
        "mockserver.request_id": request_id,
    }
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    [logged] = [line for line in lines if line.get("request_id") == request_id]
    assert (logged["trace_id"], logged["span_id"]) == (TRACE, span.span_id)


@needs_otel
def test_a_scenario_rule_and_a_fault_are_on_the_span(
    traced: tuple[httpx.Client, Path], otlp: OtlpReceiver
) -> None:
    client, _ = traced
    load(
        client,
        """
        name: steer
        rules:
          - name: busy
            match: {path: /v1/whoami, headers: {x-busy: "1"}}
            respond: {status: 503}
          - name: cut
            match: {path: /v1/whoami, headers: {x-cut: "1"}}
            respond: {fault: reset}
        """,
    )
    assert client.get("/v1/whoami", headers={"x-busy": "1"}).status_code == 503
    with pytest.raises(httpx.TransportError):
        client.get("/v1/whoami", headers={"x-cut": "1"})
    [busy] = otlp.wait_for(1, **{"mockserver.scenario.rule": "busy"})
    assert busy.attributes["http.response.status_code"] == 503
    assert busy.attributes["http.route"] == "/v1/whoami"
    [cut] = otlp.wait_for(1, **{"mockserver.fault": "reset"})
    assert cut.attributes["mockserver.scenario.rule"] == "cut"
    assert "http.response.status_code" not in cut.attributes  # nothing was answered


@needs_otel
def test_a_webhook_attempt_is_a_client_span_in_the_trace_of_its_request(
    traced: tuple[httpx.Client, Path], otlp: OtlpReceiver
) -> None:
    client, _ = traced
    with WebhookReceiver() as receiver:
        register(client, receiver.url, ["document.created"])
        traceparent = f"00-{TRACE}-{PARENT}-01"
        made = client.post(
            "/v1/documents",
            json={"title": "traced", "vault_id": "vault_mock_us"},
            headers={"traceparent": traceparent},
        )
        assert made.status_code == 201, made.text
        [delivered] = receiver.wait_for(1, timeout=DEADLINE)
    version, trace_id, span_id, flags = delivered.headers["traceparent"].split("-")
    assert (version, trace_id, flags) == ("00", TRACE, "01")
    [server] = otlp.wait_for(1, **{"mockserver.request_id": made.headers["x-request-id"]})
    [attempt] = otlp.wait_for(1, **{"mockserver.event_type": "document.created"})
    assert attempt.kind == 3  # CLIENT
    assert attempt.trace_id == TRACE
    assert attempt.span_id == span_id
    assert attempt.parent_span_id == server.span_id
    assert attempt.attributes["mockserver.webhook.outcome"] == "delivered"
    assert attempt.attributes["http.response.status_code"] == 200


@needs_otel
def test_a_retry_stays_in_the_trace_of_the_request_that_caused_it(
    traced: tuple[httpx.Client, Path], otlp: OtlpReceiver
) -> None:
    client, _ = traced
    with WebhookReceiver() as receiver:
        receiver.respond(500)
        register(client, receiver.url, ["document.created"])
        made = client.post(
            "/v1/documents",
            json={"title": "retried", "vault_id": "vault_mock_us"},
            headers={"traceparent": f"00-{TRACE}-{PARENT}-01"},
        )
        assert made.status_code == 201, made.text
        receiver.wait_for(1, timeout=DEADLINE)
        # The retry runs when the clock moves, inside another request (untraced by the client).
        moved = client.post("/_mock/clock/advance", json={"seconds": 3600})
        assert moved.status_code == 200, moved.text
        first, retry = receiver.wait_for(2, timeout=DEADLINE)
    assert first.headers["traceparent"].split("-")[1] == TRACE
    assert retry.headers["traceparent"].split("-")[1] == TRACE
    attempts = otlp.wait_for(2, **{"mockserver.event_type": "document.created"})
    outcomes = sorted(span.attributes["mockserver.webhook.outcome"] for span in attempts)
    assert outcomes == ["delivered", "failed"]
    assert {span.trace_id for span in attempts} == {TRACE}


# Without the variables (or the extra), serving imports nothing of OpenTelemetry.
NOTHING = """
import sys
from mockserver import Settings, create_app
from mockserver.testing.inprocess import inprocess_client

app = create_app(Settings(clock_mode="frozen"))
with inprocess_client(app) as client:
    key = {"Authorization": "Bearer sk_test_mock_full", "traceparent": "00-TRACE-PARENT-01"}
    assert client.get("/v1/whoami", headers=key).status_code == 200
    assert client.get("/_mock/metrics").status_code == 200
print(",".join(sorted(name for name in sys.modules if name.startswith("opentelemetry"))))
""".replace("TRACE", TRACE).replace("PARENT", PARENT)


def test_without_the_variables_nothing_of_opentelemetry_is_imported() -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", NOTHING],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=environ,
    )
    assert done.stdout.strip() == ""


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "x"}, False),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://h"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://h/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h", "OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_the_variables_that_ask_for_traces(environ: dict[str, str], expected: bool) -> None:
    assert wanted(environ) is expected


@needs_otel
def test_the_replay_of_a_durable_sandbox_opens_no_span(
    otlp: OtlpReceiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint)
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    server = DurableServer(tmp_path / "state", "--clock", "frozen")
    client = server.start()
    try:
        for _ in range(3):
            assert client.get("/v1/whoami").status_code == 200
        otlp.wait_for(3, **{"http.route": "/v1/whoami"})
    finally:
        server.stop()  # a clean stop: the exporter sends what it holds
    client = server.start()  # replays the three requests
    try:
        answered = client.get("/v1/vaults")
        assert answered.status_code == 200
        otlp.wait_for(1, **{"mockserver.request_id": answered.headers["x-request-id"]})
    finally:
        server.stop()
    assert len(otlp.wait_for(0, **{"http.route": "/v1/whoami"})) == 3
