"""The adapter's answer to a client that does not accept gzip is what Starlette's GZipMiddleware
sends it: the same messages, headers in order included, for every case its identity responder
tells apart (a partial answer, an encoded one, an excluded media type, a body below the minimum
size, a Vary header already there, once or twice)."""

from __future__ import annotations

import asyncio

import pytest
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Message, Receive, Scope, Send

from mockserver.engine.request import Response
from mockserver.web.adapter import Adapter, accepts_gzip
from mockserver.web.app import GZIP_MINIMUM_SIZE, MockApp

Lines = list[tuple[bytes, bytes]]
JSON = (b"content-type", b"application/json")
SMALL = b"x" * (GZIP_MINIMUM_SIZE - 1)
LARGE = b"x" * GZIP_MINIMUM_SIZE

CASES: dict[str, tuple[int, Lines, bytes]] = {
    "large json": (200, [JSON], LARGE),
    "small json": (200, [JSON], SMALL),
    "empty": (204, [], b""),
    "no content type": (200, [], LARGE),
    "partial": (206, [JSON], LARGE),
    "encoded": (200, [JSON, (b"content-encoding", b"br")], LARGE),
    "excluded type": (200, [(b"content-type", b"image/png")], LARGE),
    "excluded whole type": (200, [(b"content-type", b"video/mp4; codecs=x")], LARGE),
    "grpc subtype": (200, [(b"content-type", b"Application/GRPC+proto")], LARGE),
    "text with charset": (200, [(b"content-type", b"text/html; charset=utf-8")], LARGE),
    "two content types": (200, [JSON, (b"content-type", b"image/png")], LARGE),
    "vary already": (200, [JSON, (b"vary", b"Origin")], LARGE),
    "two varies": (200, [(b"vary", b"Origin"), JSON, (b"vary", b"Cookie")], LARGE),
    "error": (404, [JSON, (b"content-length", b"1024")], LARGE),
}


def _as_gzip_sends(status: int, headers: Lines, body: bytes) -> list[Message]:
    """The messages GZipMiddleware sends a client without gzip for this answer."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": status, "headers": list(headers)})
        await send({"type": "http.response.body", "body": body})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    middleware = GZipMiddleware(app, GZIP_MINIMUM_SIZE, 6)
    scope = {"type": "http", "headers": [(b"accept-encoding", b"identity")]}
    asyncio.run(middleware(scope, receive, send))
    return sent


@pytest.mark.parametrize("case", CASES)
def test_identity_answers_are_gzip_middlewares(app: MockApp, case: str) -> None:
    status, headers, body = CASES[case]
    adapter = app.http
    assert isinstance(adapter, Adapter)
    response = Response(status, list(headers), body)
    adapter.identity_vary(response)
    start, sent_body = _as_gzip_sends(status, headers, body)
    assert response.status == start["status"]
    assert response.headers == start["headers"]
    assert response.body == sent_body["body"]


@pytest.mark.parametrize(
    ("headers", "accepts"),
    [
        ([], False),
        ([(b"accept-encoding", b"gzip")], True),
        ([(b"accept-encoding", b"br, GZIP")], False),
        ([(b"accept-encoding", b"deflate, x-gzip;q=0.5")], True),
        ([(b"accept-encoding", b"identity"), (b"accept-encoding", b"gzip")], False),
        ([(b"host", b"mock"), (b"accept-encoding", b"br, gzip")], True),
    ],
)
def test_accepts_gzip_asks_what_gzip_middleware_asks(headers: Lines, accepts: bool) -> None:
    assert accepts_gzip(headers) is accepts
