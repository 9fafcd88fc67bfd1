"""Request bodies that stop arriving, over real sockets: 408 `bad_request` in the error
envelope, the connection closed, and the other clients served meanwhile, a thousand stalled
bodies or not.

The body timeout is shortened (`Settings.body_timeout`, 10 s when serving). No test bounds the
wall time: each waits for the answer or close it expects up to `WAIT`, which only a server that
never answers reaches. How fast a new client is answered beside a thousand stalled bodies is
measured by `benchmarks/slow_bodies.py`, not asserted here."""

from __future__ import annotations

import json
import resource
import selectors
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from mockserver.core.config import Settings
from mockserver.serving.guard import MAX_CONNECTIONS, guarded_protocol
from mockserver.serving.server import server as uvicorn_server
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.keys import auth

WAIT = 30.0
SHORT = 0.5  # the body timeout of most tests
KEY = b"Authorization: Bearer sk_test_mock_full\r\n"


def post_head(path: bytes = b"/v1/vaults", length: int = 100, extra: bytes = b"") -> bytes:
    return (
        b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + KEY + extra
        + b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % length
    )  # fmt: skip


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    live = LiveServer(create_app(Settings(clock_mode="frozen", body_timeout=SHORT))).start()
    yield live
    live.stop()


def read_to_close(sock: socket.socket, seconds: float = WAIT) -> bytes:
    """Everything the server sends until it closes `sock` (TimeoutError if it never does)."""
    sock.settimeout(seconds)
    received = b""
    try:
        while more := sock.recv(65536):
            received += more
    except ConnectionResetError:
        pass
    return received


def split(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one HTTP/1.1 answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, _, value in (ln.partition(": ") for ln in lines)}
    return int(status_line.split()[1]), headers, body


def assert_timed_out(answer: bytes) -> dict[str, str]:
    """`answer` is the body timeout's 408 envelope, closing the connection; its headers."""
    status, headers, body = split(answer)
    assert status == 408, answer[:300]
    assert headers["connection"] == "close"
    error = json.loads(body)["error"]
    assert error["type"] == "bad_request"
    assert error["message"] == (
        f"The request body took too long: no part of it arrived for {SHORT:g} s."
    )
    return headers


@pytest.mark.parametrize(
    ("path", "extra"),
    [
        pytest.param(b"/v1/vaults", b"", id="api"),
        pytest.param(b"/v1/vaults", b"Idempotency-Key: slow-body-1\r\n", id="keyed"),
        pytest.param(b"/_mock/clock/advance", b"", id="control-plane"),
    ],
)
def test_a_body_that_never_arrives_gets_408_and_a_close(
    live: LiveServer, path: bytes, extra: bytes
) -> None:
    """Found: a head and one byte of a 100-byte body got no answer at all (75 s and
    counting), the connection held open."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=WAIT) as sock:
        sock.sendall(post_head(path, extra=extra) + b"{")
        headers = assert_timed_out(read_to_close(sock))
    assert headers["x-request-id"].startswith("req_")


def test_a_body_that_stalls_after_some_parts_gets_408(live: LiveServer) -> None:
    """Each part may take up to the timeout: parts keep the request going, a stall ends it."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=WAIT) as sock:
        sock.sendall(post_head())
        for part in (b'{"name"', b': "slow"', b', "region"'):
            time.sleep(SHORT / 5)
            sock.sendall(part)
        assert_timed_out(read_to_close(sock))


def test_a_body_sent_in_parts_within_the_timeout_is_served() -> None:
    served = LiveServer(create_app(Settings(clock_mode="frozen", body_timeout=WAIT))).start()
    try:
        body = b'{"name": "Slow but steady", "region": "us"}'
        with socket.create_connection(("127.0.0.1", served.port), timeout=WAIT) as sock:
            sock.sendall(post_head(length=len(body), extra=b"Connection: close\r\n"))
            for at in range(0, len(body), 8):
                time.sleep(0.01)
                sock.sendall(body[at : at + 8])
            assert split(read_to_close(sock))[0] == 201
    finally:
        served.stop()


def test_a_durable_sandbox_s_body_that_never_arrives_gets_408(tmp_path: Path) -> None:
    """A durable sandbox reads the body before its request id is drawn: the 408 has none,
    and the request is not an input of the log."""
    settings = Settings(clock_mode="frozen", body_timeout=SHORT, state_dir=tmp_path / "state")
    app = create_app(settings)
    served = LiveServer(app, lifespan=True).start()
    try:
        with socket.create_connection(("127.0.0.1", served.port), timeout=WAIT) as sock:
            sock.sendall(post_head() + b"{")
            answer = read_to_close(sock)
        assert_timed_out(answer)
        assert json.loads(split(answer)[2])["error"]["request_id"] == ""
        with httpx.Client(base_url=served.base_url, headers=auth(), timeout=WAIT) as client:
            assert client.get("/v1/whoami").status_code == 200  # served as ever after it
    finally:
        served.stop()
        # The app's lifespan leaves its log open (`mockserver run` ends with its process):
        # close it, with the helper process that syncs it.
        opened = app.state.sandbox.durability.opened
        opened.writer.close()
        opened.state.close()


def enough_descriptors(needed: int) -> None:
    """Raise this process's open-file limit to `needed` if it is lower (skip if it cannot)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"needs {needed} open files; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def stalled_bodies(port: int, count: int) -> list[socket.socket]:
    """`count` connections, each with a head and one byte of a 100-byte body sent."""
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        sock.sendall(post_head() + b"{")
        socks.append(sock)
    return socks


def answered_or_closed(socks: list[socket.socket]) -> list[socket.socket]:
    """Those of `socks` the server has sent something on or closed, without waiting."""
    with selectors.DefaultSelector() as selector:  # select() takes no descriptor over 1023
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        ready = {key.fileobj for key, _ in selector.select(0)}
    return [sock for sock in socks if sock in ready]


class Guarded:
    """The app with `settings` on uvicorn under the guard, in a thread; `protocol` is the
    guard's class (its `arriving` connections are the ones whose body is still coming)."""

    def __init__(self, settings: Settings) -> None:
        self.protocol: Any = guarded_protocol(AutoHTTPProtocol)
        app = create_app(settings)
        self.sock = socket.create_server(("127.0.0.1", 0), backlog=2 * MAX_CONNECTIONS)
        self.port: int = self.sock.getsockname()[1]
        self.server = uvicorn_server(
            app, {"http": self.protocol}, log_level="warning", lifespan="off"
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> Guarded:
        self.thread.start()
        wait_until(lambda: self.server.started)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.stop()
        self.thread.join(WAIT)
        self.sock.close()


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "the condition never came true"
        time.sleep(0.01)


@pytest.mark.slow
def test_a_new_client_is_served_beside_a_thousand_stalled_bodies() -> None:
    """Found: with 1,000 connections stalled in their bodies (the connection cap), a new
    client's connection was closed at once, so no new client was served until they ended.
    Now the connection whose body has been arriving the longest makes room, and the new
    client is answered while every other stalled body is still waiting (the timeout here is
    longer than the test)."""
    enough_descriptors(2 * MAX_CONNECTIONS + 200)  # both ends of each connection, and more
    with Guarded(
        Settings(clock_mode="frozen", rate_limit=False, body_timeout=10 * WAIT)
    ) as running:
        socks = stalled_bodies(running.port, MAX_CONNECTIONS)
        try:
            wait_until(lambda: len(running.protocol.arriving) == MAX_CONNECTIONS)
            with httpx.Client(
                base_url=f"http://127.0.0.1:{running.port}", headers=auth(), timeout=WAIT
            ) as client:
                assert client.get("/v1/whoami").status_code == 200
            wait_until(lambda: len(running.protocol.arriving) == MAX_CONNECTIONS - 1)
            assert answered_or_closed(socks) == socks[:1]  # the one stalled the longest
            assert read_to_close(socks[0]) == b""  # closed, with no answer
        finally:
            for sock in socks:
                sock.close()


@pytest.mark.slow
def test_a_thousand_stalled_bodies_each_get_408() -> None:
    enough_descriptors(2 * MAX_CONNECTIONS + 200)
    with Guarded(Settings(clock_mode="frozen", rate_limit=False, body_timeout=1.0)) as running:
        socks = stalled_bodies(running.port, MAX_CONNECTIONS)
        try:
            statuses = [split(read_to_close(sock))[0] for sock in socks]
            assert statuses == [408] * MAX_CONNECTIONS
        finally:
            for sock in socks:
                sock.close()
