"""Fixtures of the webhook tests: an app whose deliveries time out after 30 s (2 s for
`quick`), clients through which every attempt is waited for at teardown, and receivers.

The deadline bounds every attempt a test expects to end otherwise (an answer, a refusal) and
every hold a test expects to release, so it is far beyond what a busy machine takes; only the
tests of the timeout itself meet a short one."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.keys import auth
from tests.support.webhooks import settle


@pytest.fixture(scope="package")
def hooks_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", webhook_timeout=30.0))


@pytest.fixture(scope="package")
def hooks_live(hooks_app: Starlette) -> Iterator[LiveServer]:
    server = LiveServer(hooks_app).start()
    yield server
    server.stop()


@pytest.fixture
def inproc(hooks_app: Starlette) -> Iterator[httpx.Client]:
    """In-process, full-scope key; every attempt has ended when the test is over."""
    hooks_app.state.store.reset()
    with inprocess_client(hooks_app, headers=auth()) as client:
        yield client
        settle(client)


@pytest.fixture(params=["in-process", "socket"])
def client(
    request: pytest.FixtureRequest, hooks_app: Starlette, hooks_live: LiveServer
) -> Iterator[httpx.Client]:
    """The same test in-process and over a real socket."""
    if request.param == "in-process":
        yield request.getfixturevalue("inproc")
        return
    hooks_app.state.store.reset()
    with httpx.Client(base_url=hooks_live.base_url, headers=auth(), timeout=30) as client:
        yield client
        settle(client)


@pytest.fixture
def quick() -> Iterator[httpx.Client]:
    """An app whose receivers must answer within 2 s, for timeouts and hangs."""
    app = create_app(Settings(clock_mode="frozen", webhook_timeout=2.0))
    with inprocess_client(app, headers=auth()) as client:
        yield client
        settle(client)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as server:
        yield server
