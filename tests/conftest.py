"""Shared fixtures: one app per session (frozen clock, default seed), reset before each test.

`api` talks to it in-process; `live` over a real socket; `both` runs a test through each.
tests/image (the container image's tier) is collected only when MOCKSERVER_TEST_IMAGE names an
image, as `make image-test` does: `make test` needs no container engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.seeds import cache as seed_cache
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.keys import auth

collect_ignore = [] if os.environ.get("MOCKSERVER_TEST_IMAGE") else ["image"]


@pytest.fixture(scope="session")
def app() -> Starlette:
    return create_app(Settings(clock_mode="frozen"))


@pytest.fixture
def fresh_app(app: Starlette) -> Starlette:
    app.state.store.reset()
    return app


@pytest.fixture
def api(fresh_app: Starlette) -> Iterator[httpx.Client]:
    """In-process client authenticated with the full-scope test key."""
    with inprocess_client(fresh_app, headers=auth()) as client:
        yield client


@pytest.fixture(scope="session")
def live_server(app: Starlette) -> Iterator[LiveServer]:
    server = LiveServer(app).start()
    yield server
    server.stop()


@pytest.fixture
def live(live_server: LiveServer, fresh_app: Starlette) -> Iterator[httpx.Client]:
    """A real-socket client authenticated with the full-scope test key."""
    with httpx.Client(base_url=live_server.base_url, headers=auth()) as client:
        yield client


@pytest.fixture(params=["in-process", "socket"])
def both(request: pytest.FixtureRequest) -> httpx.Client:
    """The same test through the in-process client and over a real socket."""
    name = "api" if request.param == "in-process" else "live"
    client: httpx.Client = request.getfixturevalue(name)
    return client


@pytest.fixture
def seed_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty seed cache home, the cache on; returns the mockserver directory inside it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("MOCKSERVER_SEED_CACHE", raising=False)
    return tmp_path / "xdg" / "mockserver"


@pytest.fixture
def big_seed_cache(seed_cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`seed_cache_home` in which every seed counts as big (`MIN_BYTES` 0)."""
    monkeypatch.setattr(seed_cache, "MIN_BYTES", 0)
    return seed_cache_home
