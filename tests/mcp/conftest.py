"""The MCP server driven by the SDK's own client: over streamable HTTP at `/_mock/mcp` of a
real server on 127.0.0.1, and over stdio (`python -m mockserver mcp` as a subprocess)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Starlette, LiveServer]]:
    app = create_app(Settings(clock_mode="frozen"))
    server = LiveServer(app, lifespan=True).start()
    yield app, server
    server.stop()


@pytest.fixture
def server(served: tuple[Starlette, LiveServer]) -> LiveServer:
    """The module's server, reset: the seed's data, the frozen clock at its start."""
    app, live = served
    app.state.store.reset()
    return live


@pytest.fixture
def mock(server: LiveServer) -> Iterator[httpx.Client]:
    """A plain HTTP client of the same server, to see what the tools did."""
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@asynccontextmanager
async def over_http(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    """A session of the SDK's client with the MCP server at `url`, sending `headers` on every
    request."""
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


@asynccontextmanager
async def over_stdio(*args: str) -> AsyncIterator[Client]:
    """A session of the SDK's client with `python -m mockserver mcp ARGS` (this checkout's
    code) as a subprocess."""
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mockserver", "mcp", *args], env=env, cwd=ROOT
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


def text(result: Any) -> str:
    """The text of a tool result's one content block."""
    [block] = result.content
    value: str = block.text
    return value
