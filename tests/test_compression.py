"""mockserver.http.compression: for every kind of response, the cheaper identity path sends
exactly what Starlette's GZipMiddleware sends (the same messages, headers in the same order),
and gzip-accepting requests go through GZipMiddleware itself."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Message

from mockserver.http.compression import Compression

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


@pytest.mark.parametrize("name", list(responses()))
@pytest.mark.parametrize("accept", [None, b"identity", b"br, deflate", b"gzip", b"br, gzip"])
def test_same_messages_as_gzip_middleware(name: str, accept: bytes | None) -> None:
    stock = GZipMiddleware(app_for(name), minimum_size=SIZE, compresslevel=6)
    ours = Compression(app_for(name), minimum_size=SIZE, compresslevel=6)
    assert run(ours, accept) == run(stock, accept)


def test_large_identity_responses_say_they_vary() -> None:
    sent = run(Compression(app_for("large json"), minimum_size=SIZE, compresslevel=6), None)
    assert (b"vary", b"Accept-Encoding") in sent[0]["headers"]


def test_lifespan_and_other_scopes_pass_through() -> None:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    async def nothing() -> Message:
        return {}

    middleware = Compression(app, minimum_size=SIZE, compresslevel=6)
    asyncio.run(middleware({"type": "lifespan"}, nothing, nothing))
    assert seen == ["lifespan"]
