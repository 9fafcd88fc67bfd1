"""The test servers' uvicorn server (`PromptServer`): `stop()` ends it without uvicorn's pauses,
yet a request being answered still gets its whole answer, one that never ends is cancelled
after the grace (and answered 503), and `should_exit` set as on uvicorn's own server still stops it.

No test bounds the wall time: each waits for what it expects up to `WAIT`, which only a server
that never stops reaches."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from mockserver.serving.asgi import Receive, Scope, Send
from mockserver.serving.guard import guarded_protocol
from mockserver.serving.prompt_stop import PromptServer
from mockserver.serving.server import GRACE, config, server

WAIT = 30.0


class Gate:
    """An ASGI app answering `/slow` once `release` is set (and `/` at once); `entered` tells
    that a `/slow` request is being answered, `cancelled` that one was cancelled."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.cancelled = threading.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] == "/slow":
            self.entered.set()
            try:
                while not self.release.is_set():
                    await asyncio.sleep(0.005)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"answered"})


@contextmanager
def serving(
    app: Gate, grace: float = GRACE
) -> Iterator[tuple[PromptServer, threading.Thread, str]]:
    """(the server, its thread, its base URL) while it runs; stopped and joined after."""
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    options = {"http": guarded_protocol(AutoHTTPProtocol)}
    running = PromptServer(config(app, options, log_level="critical", lifespan="off"), grace=grace)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(int(WAIT / 0.005)):
            if running.started or not thread.is_alive():
                break
            threading.Event().wait(0.005)
        assert running.started
        yield running, thread, f"http://127.0.0.1:{port}"
    finally:
        running.stop()
        thread.join(WAIT)
        sock.close()


def refuses(url: str) -> bool:
    """Whether nothing listens at the URL's port any more."""
    port = int(url.rsplit(":", 1)[1])
    try:
        socket.create_connection(("127.0.0.1", port), timeout=WAIT).close()
    except ConnectionRefusedError:
        return True
    return False


def ask_slow(gate: Gate, url: str, answers: list[httpx.Response]) -> threading.Thread:
    """A thread asking for `/slow` (its answer put in `answers`), returned once the app has
    the request."""

    def ask() -> None:
        with httpx.Client(timeout=WAIT) as client:
            answers.append(client.get(f"{url}/slow"))

    asking = threading.Thread(target=ask)
    asking.start()
    assert gate.entered.wait(WAIT)
    return asking


def test_stop_ends_the_server_and_closes_its_port() -> None:
    gate = Gate()
    with serving(gate) as (running, thread, url):
        with httpx.Client(timeout=WAIT) as client:
            answer = client.get(f"{url}/")
        assert answer.text == "answered"
        assert answer.headers["server"] == "uvicorn"  # uvicorn's first tick still ran
        running.stop()
        thread.join(WAIT)
        assert not thread.is_alive()
        assert refuses(url)


def test_a_request_being_answered_when_stop_comes_gets_its_whole_answer() -> None:
    gate = Gate()
    answers: list[httpx.Response] = []
    with serving(gate) as (running, thread, url):
        asking = ask_slow(gate, url, answers)
        running.stop()
        gate.release.set()
        asking.join(WAIT)
        thread.join(WAIT)
        assert not thread.is_alive()
    assert [answer.text for answer in answers] == ["answered"]
    assert not gate.cancelled.is_set()


def test_a_request_that_never_ends_is_cancelled_after_the_grace() -> None:
    gate = Gate()  # never released
    answers: list[httpx.Response] = []
    with serving(gate, grace=0.2) as (running, thread, url):  # the mock's 2 s, shortened
        asking = ask_slow(gate, url, answers)
        running.stop()
        thread.join(WAIT)
        assert not thread.is_alive()
        asking.join(WAIT)
    assert gate.cancelled.is_set()
    # the servers' app answers a request cancelled at the end of the grace (serving/stopping.py)
    [answer] = answers
    assert answer.status_code == 503
    assert answer.json()["error"]["message"] == "the server is stopping"


def test_should_exit_set_directly_still_stops_it() -> None:
    gate = Gate()
    with serving(gate) as (running, thread, url):
        running.should_exit = True  # how uvicorn's own server is told
        thread.join(WAIT)
        assert not thread.is_alive()
        assert refuses(url)


def test_stop_before_the_server_runs_ends_it_as_soon_as_it_starts() -> None:
    sock = socket.create_server(("127.0.0.1", 0))
    running = server(Gate(), {"http": AutoHTTPProtocol}, log_level="critical", lifespan="off")
    running.stop()
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    thread.join(WAIT)
    assert not thread.is_alive()
    sock.close()
