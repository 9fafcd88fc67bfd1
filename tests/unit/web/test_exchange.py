"""mockserver.web.exchange: the fused response path sends, for every kind of response, what
the three layers it replaces sent: Starlette's GZipMiddleware's identity path (the same messages,
headers in the same order), with the request id and rate-limit headers the pipeline adds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.web.exchange import Exchange

SIZE = 1024
BIG = b"x" * 3000


async def chunks() -> AsyncIterator[bytes]:
    yield BIG
    yield b"tail"


def responses() -> dict[str, Response]:
    return {
        "small json": Response(b'{"a":1}', media_type="application/json"),
        "large json": Response(b'{"a":"' + BIG + b'"}', media_type="application/json"),
        "exactly the minimum": Response(b"y" * SIZE, media_type="application/json"),
        "csv": Response(BIG, media_type="text/csv; charset=utf-8"),
        "no content type": Response(BIG),
        "empty": Response(status_code=204),
        "image": Response(BIG, media_type="image/png"),
        "video wildcard": Response(BIG, media_type="video/mp4"),
        "grpc plus": Response(BIG, media_type="application/grpc+proto"),
        "partial": Response(BIG, status_code=206, media_type="text/plain"),
        "encoded": Response(BIG, headers={"Content-Encoding": "br"}, media_type="text/plain"),
        "vary already": Response(BIG, headers={"Vary": "Origin"}, media_type="text/plain"),
        "two varies": Response(
            BIG, headers={"Vary": "Origin", "X-Other": "1"}, media_type="text/plain"
        ),
        "streaming": StreamingResponse(chunks(), media_type="text/plain"),
        "plain text": PlainTextResponse("ok"),
    }


def app_for(name: str) -> ASGIApp:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        response = responses()[name]
        if name == "two varies":
            response.raw_headers.append((b"vary", b"Cookie"))
        await response(scope, receive, send)

    return app


def run(app: ASGIApp, accept: bytes | None) -> list[Message]:
    headers = [(b"host", b"mock")] + ([(b"accept-encoding", accept)] if accept else [])
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": headers,
        "query_string": b"",
        "asgi": {"version": "3.0"},
    }
    sent: list[Message] = []
    requested = False

    async def receive() -> Message:
        # The request once, then nothing: a streaming response waits here for a disconnect
        # until it is done and cancels the wait.
        nonlocal requested
        if requested:
            await asyncio.Event().wait()
        requested = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append({**message, "headers": list(message.get("headers", []))})

    asyncio.run(asyncio.wait_for(app(scope, receive, send), timeout=10))
    return sent


ID = (b"x-request-id", b"req_1")
RATE = [(b"x-ratelimit-limit", b"120"), (b"x-ratelimit-remaining", b"119")]
DATE = (b"date", b"Thu, 15 Jan 2026 09:00:00 GMT")


def through_exchange(app: ASGIApp, *, replaying: bool) -> ASGIApp:
    async def fused(scope: Scope, receive: Receive, send: Send) -> None:
        exchange = Exchange(send, None, SIZE, ID, DATE)
        exchange.replaying = replaying
        exchange.rate_headers = list(RATE)
        await app(scope, receive, exchange)

    return fused


def with_pipeline_headers(
    app: ASGIApp, added: tuple[tuple[bytes, bytes], ...] = (ID, *RATE, DATE)
) -> ASGIApp:
    """What the pipeline's own `send` wrapper did, in front of the stock middleware (a replay
    gets only `Date`)."""

    async def pipelined(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *added]
            await send(message)

        await app(scope, receive, send_with_id)

    return pipelined


@pytest.mark.parametrize("name", list(responses()))
@pytest.mark.parametrize("accept", [None, b"identity", b"br, deflate"])
def test_a_replay_goes_out_as_through_gzip_middleware(name: str, accept: bytes | None) -> None:
    stock = GZipMiddleware(
        with_pipeline_headers(app_for(name), (DATE,)), minimum_size=SIZE, compresslevel=6
    )
    assert run(through_exchange(app_for(name), replaying=True), accept) == run(stock, accept)


@pytest.mark.parametrize("name", list(responses()))
def test_a_response_gets_the_pipeline_headers_then_the_identity_path(name: str) -> None:
    stock = GZipMiddleware(with_pipeline_headers(app_for(name)), minimum_size=SIZE)
    assert run(through_exchange(app_for(name), replaying=False), None) == run(stock, None)
