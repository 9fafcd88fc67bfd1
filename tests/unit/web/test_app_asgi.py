"""The app's ASGI face apart from the API's answers: a Starlette application, its lifespan
protocol (what uvicorn and other servers drive), a WebSocket, which the API has none of, and
every method and path going to the sandbox."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest
from starlette.applications import Starlette

from mockserver import Settings, create_app


def _drive(app: Any, scope: dict[str, Any], incoming: list[dict[str, Any]]) -> list[Any]:
    """Call the app with `scope`, feeding it `incoming`; the messages it sent (and, last, the
    exception it raised, if any)."""
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> None:
        try:
            await app(scope, receive, send)
        except Exception as error:
            sent.append(error)

    asyncio.run(run())
    return sent


LIFESPAN = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]


def test_the_lifespan_starts_and_stops_the_sandbox_s_background_work() -> None:
    app = create_app(Settings(clock_mode="frozen"))
    sent = _drive(app, {"type": "lifespan", "asgi": {"version": "3.0"}}, list(LIFESPAN))
    assert sent == [{"type": "lifespan.startup.complete"}, {"type": "lifespan.shutdown.complete"}]


def test_a_failing_start_reports_its_traceback_and_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(Settings(clock_mode="frozen"))

    @asynccontextmanager
    async def failing() -> AsyncIterator[None]:
        raise RuntimeError("the state directory is unreadable")
        yield

    monkeypatch.setattr(app.state.sandbox, "running", failing)
    sent = _drive(app, {"type": "lifespan"}, list(LIFESPAN))
    assert [message["type"] for message in sent[:1]] == ["lifespan.startup.failed"]
    assert "RuntimeError: the state directory is unreadable" in sent[0]["message"]
    assert isinstance(sent[1], RuntimeError)


def test_a_websocket_is_closed_at_once() -> None:
    app = create_app(Settings(clock_mode="frozen"))
    scope = {"type": "websocket", "path": "/v1/documents", "headers": []}
    sent = _drive(app, scope, [{"type": "websocket.connect"}])
    assert sent == [{"type": "websocket.close", "code": 1000, "reason": ""}]


def test_the_app_is_a_starlette_application() -> None:
    assert isinstance(create_app(Settings(clock_mode="frozen")), Starlette)


def test_state_holds_the_sandbox_and_its_parts() -> None:
    app = create_app(Settings(clock_mode="frozen"))
    sandbox = app.state.sandbox
    assert app.state.store is sandbox.store
    assert app.state.control is sandbox.control
    assert app.state.settings.clock_mode == "frozen"


@pytest.mark.parametrize("path", ["/v1/whoami", "/_mock/ui"])
def test_http_goes_to_the_sandbox(path: str) -> None:
    from mockserver.testing.inprocess import inprocess_client

    app = create_app(Settings(clock_mode="frozen"))
    with inprocess_client(app) as client:
        answer = client.get(path, headers={"Authorization": "Bearer sk_test_mock_full"})
    assert answer.status_code == 200


def test_a_target_that_is_no_path_gets_the_sandbox_s_404_envelope() -> None:
    app = create_app(Settings(clock_mode="frozen"))
    scope = {"type": "http", "method": "OPTIONS", "path": "*", "headers": [], "query_string": b""}
    start, body = _drive(app, scope, [{"type": "http.request", "body": b""}])
    assert start["status"] == 404
    error = orjson.loads(body["body"])["error"]
    assert (error["type"], error["message"]) == (
        "not_found",
        "Unrecognized request URL (OPTIONS *).",
    )
