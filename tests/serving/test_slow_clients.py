"""Slow, idle and oversized clients over real sockets: each is cut off at its limit, and the
others are served meanwhile.

No test bounds the wall time: each waits for the close or the answer it expects, up to `WAIT`,
which only a server that never cuts the connection reaches."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from mockserver.core.config import Settings
from mockserver.serving.guard import HEAD_MAX, guarded_protocol
from mockserver.serving.server import config, server
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.hostile import SlowClient, idle_connections
from tests.support.keys import auth

HEAD_TIMEOUT = 0.5
MAX_CONNECTIONS = 8
WAIT = 30.0  # seconds to wait for a close or an answer that is due far sooner


class GuardedServer:
    """The app on uvicorn with a short head deadline (or `head_timeout`) and few connections,
    in a thread."""

    def __init__(self, head_timeout: float = HEAD_TIMEOUT) -> None:
        app = create_app(Settings(clock_mode="frozen", rate_limit=False))
        protocol = guarded_protocol(
            AutoHTTPProtocol, head_timeout=head_timeout, max_connections=MAX_CONNECTIONS
        )
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        self.server = server(app, {"http": protocol}, log_level="warning", lifespan="off")
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> GuardedServer:
        self.thread.start()
        deadline = time.monotonic() + WAIT
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.server.started
        return self

    def __exit__(self, *_: object) -> None:
        self.server.stop()
        self.thread.join(10)
        self.sock.close()

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=f"http://127.0.0.1:{self.port}", headers=auth(), timeout=WAIT)


@pytest.fixture(scope="module")
def guarded() -> Iterator[GuardedServer]:
    with GuardedServer() as running:
        yield running


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """(whether the server closed `sock` within `seconds`, what it sent before)."""
    sock.settimeout(seconds)
    received = b""
    try:
        while more := sock.recv(4096):
            received += more
    except TimeoutError:
        return False, received
    except ConnectionResetError:
        pass
    return True, received


def test_a_head_sent_a_byte_at_a_time_gets_408(guarded: GuardedServer) -> None:
    """The deadline is for the whole head: bytes that keep coming do not stretch it (the head
    would take over three minutes at this pace)."""
    with SlowClient("127.0.0.1", guarded.port, interval=0.02) as slow:
        slow.join(WAIT)
    assert slow.closed_after is not None
    assert slow.closed_after >= HEAD_TIMEOUT * 0.9
    assert slow.answer.startswith(b"HTTP/1.1 408 ")


def test_others_are_served_while_a_head_drips() -> None:
    """With a head deadline longer than the test, every other request is answered while the
    slow head is still open: the server does not wait for it."""
    with (
        GuardedServer(head_timeout=WAIT) as patient,
        SlowClient("127.0.0.1", patient.port, interval=0.02) as slow,
        patient.client() as other,
    ):
        slow.wait_sent(10)
        for _ in range(20):
            assert other.get("/v1/whoami").status_code == 200
        assert (slow.closed_after, slow.answer) == (None, b"")  # still dripping, unanswered


def test_a_connection_that_sends_nothing_is_closed(guarded: GuardedServer) -> None:
    [sock] = idle_connections("127.0.0.1", guarded.port, 1)
    with sock:
        started = time.monotonic()
        closed, received = closed_within(sock, WAIT)
        assert closed
        assert received == b""  # nothing was asked, nothing is answered
        assert time.monotonic() - started >= HEAD_TIMEOUT * 0.9


def big_head(port: int, context: ssl.SSLContext | None = None) -> bytes:
    """What the server answers a head just over the cap, sent a kilobyte at a time (over TLS
    with `context`)."""
    with contextlib.ExitStack() as stack:
        sock = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
        if context is not None:
            sock = stack.enter_context(context.wrap_socket(sock, server_hostname="localhost"))
        sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\n")
        line = b"X-Big: " + b"b" * 1000 + b"\r\n"
        try:
            for _ in range(HEAD_MAX // len(line) + 2):
                sock.sendall(line)
        except OSError:  # closed while sending: the answer is still there to read
            pass
        closed, received = closed_within(sock, WAIT)
    assert closed
    return received


def test_a_head_over_the_cap_gets_431(guarded: GuardedServer) -> None:
    assert big_head(guarded.port).startswith(b"HTTP/1.1 431 ")


def head_of(size: int, request: bytes = b"GET /v1/whoami", headers: bytes = b"") -> bytes:
    """A whole request head of exactly `size` bytes (its blank line included), with the key
    and `headers`."""
    start = request + b" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_test_mock_full\r\n"
    start += headers
    filler = size - len(start) - len(b"X-Big: \r\n\r\n")
    return start + b"X-Big: " + b"b" * filler + b"\r\n\r\n"


def answer_to(port: int, *parts: bytes) -> bytes:
    """What the server answers `parts`, each sent whole (so a part is usually one read), up
    to the end of the answer's head."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        try:
            for part in parts:
                sock.sendall(part)
        except OSError:  # closed while sending: the answer is still there to read
            pass
        received = b""
        while b"\r\n\r\n" not in received and (more := sock.recv(65536)):
            received += more
    return received


@pytest.mark.parametrize(
    "parts",
    [
        pytest.param((head_of(70_000),), id="one-read"),
        pytest.param((head_of(HEAD_MAX + 1),), id="one-byte-over"),
        pytest.param((head_of(70_000)[:60_000], head_of(70_000)[60_000:]), id="ends-in-a-read"),
    ],
)
def test_a_head_over_the_cap_gets_431_however_it_arrives(
    guarded: GuardedServer, parts: tuple[bytes, ...]
) -> None:
    """Found: a head over the cap that arrived whole in one read (or whose last read completed
    it) was served; the cap held only for a head still unfinished past it."""
    assert answer_to(guarded.port, *parts)[:13] == b"HTTP/1.1 431 "


def test_a_head_of_exactly_the_cap_is_served(guarded: GuardedServer) -> None:
    assert answer_to(guarded.port, head_of(HEAD_MAX))[:13] == b"HTTP/1.1 200 "


def test_a_body_in_the_same_read_as_a_head_of_the_cap_is_not_counted(
    guarded: GuardedServer,
) -> None:
    body = b'{"name": "Vault of a big head", "region": "us"}'
    headers = b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    head = head_of(HEAD_MAX, b"POST /v1/vaults", headers)
    assert answer_to(guarded.port, head + body)[:13] == b"HTTP/1.1 201 "


def test_a_keep_alive_request_dripped_after_a_response_gets_408(guarded: GuardedServer) -> None:
    with socket.create_connection(("127.0.0.1", guarded.port), timeout=10) as sock:
        request = (
            b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_test_mock_full\r\n"
        )
        sock.sendall(request + b"\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        sock.sendall(request)  # the next head, never finished
        closed, received = closed_within(sock, WAIT)
    assert closed
    assert received.startswith(b"HTTP/1.1 408 ")


def test_a_body_still_arriving_after_an_early_answer_is_not_taken_for_a_head(
    guarded: GuardedServer,
) -> None:
    """A 413 goes out as soon as the declared length is over the limit; the client may still
    send the whole body after it, far more than a head may hold, and then its next request."""
    size = 4 * HEAD_MAX
    with socket.create_connection(("127.0.0.1", guarded.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_test_mock_full\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (1024 * 1024 + 1)
        )
        assert sock.recv(65536).startswith(b"HTTP/1.1 413 ")  # answered before the body
        chunk = b"x" * 4096
        for _ in range(size // len(chunk)):
            sock.sendall(chunk)
        sock.sendall(b"x" * (1024 * 1024 + 1 - size))  # the rest of the declared body
        sock.sendall(
            b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_test_mock_full\r\n\r\n"
        )
        received = b""
        while b"\r\n\r\n" not in received:
            more = sock.recv(65536)
            assert more, received
            received += more
    assert received.startswith(b"HTTP/1.1 200 "), received[:200]


def test_many_requests_on_one_connection_are_not_cut_off(guarded: GuardedServer) -> None:
    with guarded.client() as client:
        for _ in range(3):
            for _ in range(20):
                assert client.get("/v1/whoami").status_code == 200
            time.sleep(HEAD_TIMEOUT * 1.5)  # idle longer than a head may take: keep-alive's 5 s
        assert client.get("/v1/whoami").status_code == 200


def test_past_the_connection_cap_the_longest_idle_connections_make_room(
    guarded: GuardedServer,
) -> None:
    idle = idle_connections("127.0.0.1", guarded.port, MAX_CONNECTIONS + 4)
    try:
        time.sleep(0.1)  # the server has accepted them all
        with guarded.client() as client:
            assert client.get("/v1/whoami").status_code == 200
        oldest = [closed_within(sock, WAIT)[0] for sock in idle[:4]]
        assert oldest == [True] * 4
        newest = idle[-1]
        newest.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\n\r\n")
        assert newest.recv(65536).startswith(b"HTTP/1.1 401 ")  # still open, and served
    finally:
        for sock in idle:
            sock.close()


def test_the_mock_s_servers_carry_the_limits() -> None:
    """`mockserver run` and the test servers share `config`: uvicorn's limits are set, and a
    head over the cap is refused there too."""
    settings = config(create_app(Settings()), {})
    assert (settings.timeout_keep_alive, settings.backlog) == (5, 2048)
    assert settings.h11_max_incomplete_event_size == HEAD_MAX
    live = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    try:
        assert big_head(live.port).startswith(b"HTTP/1.1 431 ")
    finally:
        live.stop()


def test_the_limits_hold_behind_the_https_door() -> None:
    """With TLS the guard serves the decrypted connection: a head over the cap gets 431 too."""
    live = LiveServer(create_app(Settings(clock_mode="frozen")), tls=True).start()
    try:
        assert big_head(live.port, live.client_context()).startswith(b"HTTP/1.1 431 ")
    finally:
        live.stop()
