"""The head writer puts exactly uvicorn's bytes on the wire, and leaves to uvicorn what it does not
handle: two real servers answer the same scripted responses, one through `head_writer.direct`,
and every byte each client reads must match (the `date` line aside, which is the wall clock)."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from starlette.types import Message, Receive, Scope, Send

from mockserver.serving import head_writer
from mockserver.serving.one_write import one_write_protocol

Headers = list[tuple[bytes, bytes]]


def _start(status: int, headers: Any) -> Message:
    return {"type": "http.response.start", "status": status, "headers": headers}


def _body(body: bytes, more: bool = False) -> Message:
    return {"type": "http.response.body", "body": body, "more_body": more}


PLAIN: Headers = [(b"content-length", b"2"), (b"content-type", b"application/json")]
SCRIPTS: dict[str, list[Message]] = {
    "/plain": [_start(200, PLAIN), _body(b"{}")],
    "/created": [
        _start(
            201,
            [
                (b"content-length", b"4"),
                (b"content-type", b"application/json"),
                (b"x-request-id", b"req_0123456789abcdefABCDEFgh"),
                (b"x-ratelimit-limit", b"120"),
                (b"x-ratelimit-remaining", b"199"),
                (b"x-ratelimit-reset", b"1768467660"),
            ],
        ),
        _body(b'{"a"', more=True),
        _body(b""),
    ],
    "/no-content": [_start(204, []), _body(b"")],
    "/streamed": [_start(200, [(b"content-type", b"text/plain")]), _body(b"ab", True), _body(b"c")],
    "/chunked": [_start(200, [(b"transfer-encoding", b"chunked")]), _body(b"ab", True), _body(b"")],
    "/close": [_start(200, [(b"content-length", b"2"), (b"connection", b"close")]), _body(b"ok")],
    "/uppercase": [_start(200, [(b"Content-Length", b"2"), (b"X-Upper", b"Yes")]), _body(b"ok")],
    "/tab-and-latin-1": [
        _start(200, [(b"content-length", b"2"), (b"x-tab", b"a\tb"), (b"x-latin", b"caf\xe9")]),
        _body(b"ok"),
    ],
    "/bad-value": [_start(200, [(b"content-length", b"2"), (b"x-bad", b"a\x01b")]), _body(b"ok")],
    "/bad-name": [_start(200, [(b"content-length", b"2"), (b"x bad", b"v")]), _body(b"ok")],
    "/odd-status": [_start(299, [(b"content-length", b"0")]), _body(b"")],
    "/tuple-headers": [_start(200, ((b"content-length", b"2"),)), _body(b"ok")],
    "/twice-length": [
        _start(200, [(b"content-length", b"2"), (b"content-length", b"9")]),
        _body(b"ok"),
    ],
    "/short-body": [_start(200, [(b"content-length", b"5")]), _body(b"ok")],
    "/negative-length": [_start(200, [(b"content-length", b"-1")]), _body(b"")],
}


INVALID = ("/bad-name", "/bad-value")


class Scripted:
    """Plays the script of the request's path; `direct` decides whether the head writer is used.
    `fast` records, per request, whether `direct` replaced uvicorn's send."""

    def __init__(self, direct: bool) -> None:
        self.direct = direct
        self.fast: list[bool] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if self.direct:
            writer = head_writer.direct(send)
            self.fast.append(writer is not send)
            send = writer
        for message in SCRIPTS[scope["path"]]:
            await send(message)


def _exchange(port: int, raw: bytes) -> bytes:
    """Send `raw` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(raw)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return re.sub(rb"date: [^\r]*\r\n", b"date: -\r\n", b"".join(chunks))


def _requests(path: str) -> Iterator[tuple[str, bytes]]:
    """A keep-alive request then a closing one (pipelined), a HEAD, and HTTP/1.0."""
    yield (
        "pipelined",
        (
            f"GET {path} HTTP/1.1\r\nHost: t\r\n\r\nGET {path} HTTP/1.1\r\nHost: t\r\n"
            "Connection: close\r\n\r\n"
        ).encode(),
    )
    yield "head", f"HEAD {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode()
    yield "http/1.0", f"GET {path} HTTP/1.0\r\nHost: t\r\n\r\n".encode()


class Server:
    """uvicorn serving `app` on a free port in a thread, with the protocol `mockserver run` uses.

    pytest attaches its log capture to every logger, `uvicorn.access` included, and uvicorn
    then logs each request, which the head writer leaves to uvicorn: the protocol here turns the
    access log off again, as `mockserver run` has it."""

    def __init__(self, app: Scripted) -> None:
        class Quiet(one_write_protocol()):  # type: ignore[misc]
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                self.access_log = False

        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(app, http=Quiet, lifespan="off", log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )
        self._thread.start()
        while not self._server.started:
            assert self._thread.is_alive(), "the server did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Scripted, Server, Server]]:
    app = Scripted(direct=True)
    ours, stock = Server(app), Server(Scripted(direct=False))
    yield app, ours, stock
    ours.stop()
    stock.stop()


@pytest.mark.parametrize("path", sorted(SCRIPTS))
def test_the_bytes_on_the_wire_are_uvicorns(
    servers: tuple[Scripted, Server, Server], path: str
) -> None:
    _, ours, stock = servers
    for label, raw in _requests(path):
        expected = _exchange(stock.port, raw)
        # uvicorn refuses an invalid header by closing the connection before any byte is sent
        assert expected.startswith(b"HTTP/1.") != (path in INVALID), (label, expected)
        assert _exchange(ours.port, raw) == expected, label


def test_uvicorns_send_is_replaced_under_httptools(
    servers: tuple[Scripted, Server, Server],
) -> None:
    app, ours, _ = servers
    app.fast.clear()
    answer = _exchange(ours.port, b"GET /plain HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert answer.startswith(
        b"HTTP/1.1 200 OK\r\ndate: -\r\nserver: uvicorn\r\ncontent-length: 2\r\n"
    )
    assert app.fast == [True]


def test_any_other_send_is_left_as_it_is() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    assert head_writer.direct(send) is send
    asyncio.run(head_writer.direct(send)(_start(200, PLAIN)))
    assert sent == [_start(200, PLAIN)]
