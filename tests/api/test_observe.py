"""`Sandbox.observe`: every API request once answered, what a request log is made of: its id,
the account of its key (or of the account sandbox that answered), why an error was refused,
and the time it took; `/_mock` requests are not observed."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from email.utils import parsedate_to_datetime

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.clock import format_ts
from mockserver.core.config import Settings
from mockserver.engine.journal import Answered
from mockserver.serving.console import Console
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import auth


@pytest.fixture
def app() -> Starlette:
    return create_app(Settings(clock_mode="frozen"))


@pytest.fixture
def seen(app: Starlette) -> list[Answered]:
    answered: list[Answered] = []
    app.state.sandbox.observe(answered.append)
    return answered


@pytest.fixture
def client(app: Starlette) -> Iterator[httpx.Client]:
    with inprocess_client(app, headers=auth()) as client:
        yield client


def test_an_answered_request_is_observed_with_its_id_and_account(
    client: httpx.Client, seen: list[Answered]
) -> None:
    response = client.get("/us/v1/whoami")
    [answered] = seen
    assert answered.request.method == "GET"
    assert answered.request.path == "/us/v1/whoami"  # as sent
    assert answered.response.status == 200
    assert answered.request_id == response.headers["x-request-id"]
    assert answered.account == "acct_mock_us"
    assert answered.explain is None
    assert answered.seconds >= 0


def test_an_error_is_observed_with_why(client: httpx.Client, seen: list[Answered]) -> None:
    client.get("/v1/documents/doc_nowhere")
    client.get("/v1/whoami", headers={"Authorization": "Bearer sk_test_nobody"})
    missing, unknown = seen
    assert (missing.response.status, missing.explain) == (
        404,
        "not_found: No such document: 'doc_nowhere'",
    )
    assert unknown.response.status == 401
    assert unknown.account is None
    assert unknown.explain is not None
    assert unknown.explain.startswith("authentication: ")


def test_control_plane_requests_are_not_observed(
    client: httpx.Client, seen: list[Answered]
) -> None:
    client.get("/_mock/clock")
    client.get("/_mock/health")
    client.post("/_mock/clock/advance", json={"seconds": 1})
    assert seen == []


def test_an_account_sandboxs_requests_are_observed_with_its_account(
    client: httpx.Client, seen: list[Answered]
) -> None:
    made = client.post("/_mock/accounts").json()
    key = made["keys"]["full"]
    client.get("/v1/vaults", headers={"Authorization": f"Bearer {key}"})
    [answered] = seen
    assert answered.account == made["id"]
    assert answered.response.status == 200


def test_a_replayed_answer_is_observed(client: httpx.Client, seen: list[Answered]) -> None:
    body = {"name": "Once", "region": "us"}
    first = client.post("/v1/vaults", json=body, headers={"Idempotency-Key": "k1"})
    again = client.post("/v1/vaults", json=body, headers={"Idempotency-Key": "k1"})
    assert again.headers["idempotent-replayed"] == "true"
    assert [a.response.status for a in seen] == [first.status_code, again.status_code]
    assert seen[0].request_id != seen[1].request_id  # each request draws its own


def test_the_console_writes_one_json_object_per_request(
    client: httpx.Client, app: Starlette
) -> None:
    out = io.StringIO()
    app.state.sandbox.observe(Console("json", app.state.store.clock, out).request)
    sent = client.get("/v1/documents/doc_nowhere")
    [line] = out.getvalue().splitlines()
    record = json.loads(line)
    assert list(record) == [
        "time",
        "event",
        "request_id",
        "method",
        "path",
        "status",
        "duration_ms",
        "account",
        "explain",
    ]
    assert record["time"].endswith("Z")
    assert record["time"] == format_ts(parsedate_to_datetime(sent.headers["date"]).timestamp())
    assert record["event"] == "request"
    assert record["request_id"] == sent.headers["x-request-id"]
    assert (record["method"], record["path"], record["status"]) == (
        "GET",
        "/v1/documents/doc_nowhere",
        404,
    )
    assert record["account"] == "acct_mock_us"
    assert record["explain"].startswith("not_found: ")


def test_the_console_writes_one_text_line_per_request(client: httpx.Client, app: Starlette) -> None:
    out = io.StringIO()
    app.state.sandbox.observe(Console("text", app.state.store.clock, out).request)
    ok = client.get("/v1/whoami")
    client.get("/v1/documents/doc_nowhere")
    first, second = out.getvalue().splitlines()
    clock, method, path, status, duration, unit, request_id = first.split(" ")
    assert (method, path, status, unit) == ("GET", "/v1/whoami", "200", "ms")
    assert len(clock) == 8
    assert clock[2] == ":"
    assert float(duration) >= 0
    assert request_id == ok.headers["x-request-id"]
    assert " GET /v1/documents/doc_nowhere 404 " in second
    assert second.endswith(" not_found: No such document: 'doc_nowhere'")
