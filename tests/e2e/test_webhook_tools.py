"""`mockserver trigger`, `listen` and `events resend` against a mock served on a real socket.

One live server for the module (frozen clock, reset before each test); trigger and resend run
in this process through `main`, `listen` as a subprocess stopped with SIGTERM. Every delivery is
verified with Stripe's library.
"""

from __future__ import annotations

import contextlib
import json
import queue
import re
import signal
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import stripe
from starlette.applications import Starlette

from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.openapi.webhooks import EVENT_TYPES
from mockserver.testing.live import LiveServer
from mockserver.testing.receiver import Received, WebhookReceiver, closed_port
from mockserver.web.app import create_app
from tests.support.cli import MOCKSERVER
from tests.support.keys import auth
from tests.support.webhooks import advance, register, settle, t_of


@pytest.fixture(scope="module")
def hooks_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", webhook_timeout=30.0))


@pytest.fixture(scope="module")
def server(hooks_app: Starlette) -> Iterator[LiveServer]:
    live = LiveServer(hooks_app).start()
    yield live
    live.stop()


@pytest.fixture
def client(server: LiveServer, hooks_app: Starlette) -> Iterator[httpx.Client]:
    hooks_app.state.store.reset()
    with httpx.Client(base_url=server.base_url, headers=auth(), timeout=30) as client:
        yield client
        settle(client)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as server:
        yield server


def verified(request: Received, secret: str) -> dict[str, Any]:
    """The event of a delivery whose signature Stripe's verifier accepts."""
    header = request.headers["x-service-signature"]
    # tolerance=None: the frozen mock clock is far from the wall clock Stripe compares with.
    assert stripe.WebhookSignature.verify_header(request.body, header, secret, None) is True
    event: dict[str, Any] = json.loads(request.body)
    return event


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_trigger_delivers_every_event_type(
    event_type: str,
    server: LiveServer,
    client: httpx.Client,
    receiver: WebhookReceiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    endpoint = register(client, receiver.url, [event_type])
    status, out, _ = run_cli(capsys, "trigger", event_type, "--url", server.base_url)
    assert status == 0
    made = json.loads(out)
    assert made["event_type"] == event_type
    assert made["event_ids"]
    assert made["objects"]
    receiver.wait_for(len(made["event_ids"]))
    settle(client)
    events = [verified(request, endpoint["signing_secret"]) for request in receiver.received]
    # The clock advance of document.locked also locks seeded documents that fall due.
    assert set(made["event_ids"]) <= {e["id"] for e in events}
    assert {e["type"] for e in events} == {event_type}


@pytest.mark.parametrize(
    ("event_type", "override", "path", "expected"),
    [
        ("document.created", "title=Board minutes", ("title",), "Board minutes"),
        ("document.signed", "metadata.kind=nda", ("metadata", "kind"), "nda"),
        ("document.in_review", 'metadata={"amount": "12000"}', ("metadata",), {"amount": "12000"}),
        ("signature.completed", "signer=ann@example.com", ("signer",), "ann@example.com"),
        ("workflow.advanced", "steps.0.comment=Looks good", ("steps", 0, "comment"), "Looks good"),
        ("vault.created", "region=eu", ("region",), "eu"),
        (
            "audit_export.created",
            "period=2026-01-01/2026-01-14",
            ("period",),
            "2026-01-01/2026-01-14",
        ),
    ],
)
def test_override_changes_the_named_field(
    event_type: str,
    override: str,
    path: tuple[str | int, ...],
    expected: object,
    server: LiveServer,
    client: httpx.Client,
    receiver: WebhookReceiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    endpoint = register(client, receiver.url, [event_type])
    argv = ["trigger", event_type, "--override", override, "--url", server.base_url]
    status, out, err = run_cli(capsys, *argv)
    assert status == 0, err
    [request] = receiver.wait_for(1)
    value: Any = verified(request, endpoint["signing_secret"])["data"]
    for part in path:
        value = value[part]
    assert value == expected
    assert json.loads(out)["event_ids"] == [json.loads(request.body)["id"]]


def test_trigger_refusals_exit_2(
    server: LiveServer, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run_cli(capsys, "trigger", "document.exploded", "--url", server.base_url)
    assert status == 2
    assert "unknown event type 'document.exploded'" in err
    assert all(event_type in err for event_type in EVENT_TYPES)
    argv = ("trigger", "vault.created", "--override", "sha256=x", "--url", server.base_url)
    status, _, err = run_cli(capsys, *argv)
    assert status == 2
    assert "'sha256' of vault.created cannot be overridden" in err
    assert "name, region" in err
    status, _, err = run_cli(capsys, "trigger", "vault.created", "--override", "name")
    assert status == 2
    assert "FIELD=VALUE" in err
    argv = ("trigger", "document.created", "--override", "title=12", "--url", server.base_url)
    status, _, err = run_cli(capsys, *argv)
    assert status == 2
    assert "'title' must be a string" in err
    assert "param: overrides.title" in err


def test_trigger_without_a_server_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    status, out, err = run_cli(capsys, "trigger", "vault.created", "--url", url)
    assert (status, out) == (1, "")
    assert f"cannot reach the mock at {url}" in err


def test_resend_delivers_the_same_event_with_a_new_signature(
    server: LiveServer,
    client: httpx.Client,
    receiver: WebhookReceiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    endpoint = register(client, receiver.url, ["document.created"])
    status, out, _ = run_cli(capsys, "trigger", "document.created", "--url", server.base_url)
    assert status == 0
    [event_id] = json.loads(out)["event_ids"]
    [first] = receiver.wait_for(1)
    settle(client)
    advance(client, 30)  # a later attempt: a later `t` in the signature
    argv = ["events", "resend", event_id, "--url", server.base_url]
    status, out, _ = run_cli(capsys, *argv)
    assert status == 0
    [delivery_id] = out.split()
    assert delivery_id.startswith("whd_")
    second = receiver.wait_for(2)[1]
    assert second.body == first.body
    assert verified(second, endpoint["signing_secret"])["id"] == event_id
    assert t_of(second) == t_of(first) + 30
    assert second.headers["x-service-signature"] != first.headers["x-service-signature"]
    # One endpoint by id, even one not subscribed to the type.
    other = register(client, receiver.url, ["vault.created"])
    status, out, _ = run_cli(capsys, *argv, "--endpoint", other["id"])
    assert status == 0
    third = receiver.wait_for(3)[2]
    assert third.body == first.body
    assert verified(third, other["signing_secret"])["id"] == event_id


def test_resend_of_an_unknown_event_or_endpoint_exits_2(
    server: LiveServer, client: httpx.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_cli(capsys, "events", "resend", "evt_nothing", "--url", server.base_url)
    assert (status, out) == (2, "")
    assert "404" in err
    assert "evt_nothing" in err
    status, out, _ = run_cli(capsys, "trigger", "vault.created", "--url", server.base_url)
    [event_id] = json.loads(out)["event_ids"]
    argv = ("events", "resend", event_id, "--endpoint", "whk_gone", "--url", server.base_url)
    status, _, err = run_cli(capsys, *argv)
    assert status == 2
    assert "param: endpoint_id" in err


def _lines(stream: Any) -> queue.Queue[str]:
    """The lines of a subprocess's stream as they come, read by a thread."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return lines


@contextlib.contextmanager
def stopped(process: subprocess.Popen[str]) -> Iterator[None]:
    """Kill the process (by its PID) if a failed test left it running."""
    try:
        yield
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


LINE = re.compile(r"^(\S+) document\.created (evt_\w+) -> 200$")


def test_listen_forwards_prints_and_cleans_up(
    server: LiveServer, client: httpx.Client, receiver: WebhookReceiver
) -> None:
    argv = [*MOCKSERVER, "listen", "--forward-to", receiver.url, "--events", "document.created"]
    with (
        subprocess.Popen(
            [*argv, "--url", server.base_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as listen,
        stopped(listen),
    ):
        out = _lines(listen.stdout)
        secret = out.get(timeout=30)
        assert secret.startswith("whsec_")
        [endpoint] = client.get("/v1/webhook_endpoints").json()["data"]
        assert endpoint["url"] == receiver.url
        assert endpoint["events"] == ["document.created"]

        response = client.post(
            "/v1/documents", json={"title": "Forwarded", "vault_id": "vault_mock_us"}
        )
        assert response.status_code == 201
        # The frozen clock never moves here, so a delivery that arrives at all was sent as the
        # event happened, on its first attempt: no retry is due until the clock is advanced.
        [request] = receiver.wait_for(1, timeout=30)
        event = verified(request, secret)
        assert event["data"]["id"] == response.json()["id"]
        settle(client)
        [delivery] = client.get("/_mock/webhooks/deliveries").json()["data"]
        assert delivery["status"] == "succeeded"
        assert [a["status_code"] for a in delivery["attempts"]] == [200]

        line = LINE.match(out.get(timeout=30))
        assert line is not None
        assert line.group(1) == event["created_at"]  # the mock time of the attempt
        assert line.group(2) == event["id"]

        listen.send_signal(signal.SIGTERM)
        assert listen.wait(timeout=30) == 0
        assert listen.stderr is not None
        assert f"Deleted endpoint {endpoint['id']}" in listen.stderr.read()
    assert client.get("/v1/webhook_endpoints").json()["data"] == []


def test_listen_prints_failures_and_retries(
    server: LiveServer, client: httpx.Client, receiver: WebhookReceiver
) -> None:
    """A failed attempt, then its retry on the mock clock, each on its own line."""
    receiver.respond(500)  # then 200
    with (
        subprocess.Popen(
            [*MOCKSERVER, "listen", "--forward-to", receiver.url, "--url", server.base_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        ) as listen,
        stopped(listen),
    ):
        out = _lines(listen.stdout)
        out.get(timeout=30)  # the secret
        client.post("/v1/vaults", json={"name": "Retried", "region": "us"})
        receiver.wait_for(1)
        settle(client)
        first = out.get(timeout=30)
        assert first.endswith("-> answered 500, not 2xx")
        advance(client, 60)
        receiver.wait_for(2)
        second = out.get(timeout=30)
        assert second.endswith(" -> 200")
        assert first.split()[1:3] == second.split()[1:3] == ["vault.created", first.split()[2]]
        listen.send_signal(signal.SIGINT)
        assert listen.wait(timeout=30) == 0
    assert client.get("/v1/webhook_endpoints").json()["data"] == []
