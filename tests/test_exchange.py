"""mockserver.http.exchange: the fused response path sends, for every kind of response, what
the three layers it replaces sent: Starlette's GZipMiddleware's identity path (the same messages,
headers in the same order), with the request id and rate-limit headers the pipeline adds."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.http.exchange import Exchange

from .test_compression import SIZE, app_for, responses, run

ID = (b"x-request-id", b"req_1")
RATE = [(b"x-ratelimit-limit", b"120"), (b"x-ratelimit-remaining", b"119")]


def through_exchange(app: ASGIApp, *, replaying: bool) -> ASGIApp:
    async def fused(scope: Scope, receive: Receive, send: Send) -> None:
        exchange = Exchange(send, None, SIZE, ID)
        exchange.replaying = replaying
        exchange.rate_headers = list(RATE)
        await app(scope, receive, exchange)

    return fused


def with_pipeline_headers(app: ASGIApp) -> ASGIApp:
    """What the pipeline's own `send` wrapper did, in front of the stock middleware."""

    async def pipelined(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), ID, *RATE]
            await send(message)

        await app(scope, receive, send_with_id)

    return pipelined


@pytest.mark.parametrize("name", list(responses()))
@pytest.mark.parametrize("accept", [None, b"identity", b"br, deflate"])
def test_a_replay_goes_out_as_through_gzip_middleware(name: str, accept: bytes | None) -> None:
    stock = GZipMiddleware(app_for(name), minimum_size=SIZE, compresslevel=6)
    assert run(through_exchange(app_for(name), replaying=True), accept) == run(stock, accept)


@pytest.mark.parametrize("name", list(responses()))
def test_a_response_gets_the_pipeline_headers_then_the_identity_path(name: str) -> None:
    stock = GZipMiddleware(with_pipeline_headers(app_for(name)), minimum_size=SIZE)
    assert run(through_exchange(app_for(name), replaying=False), None) == run(stock, None)
