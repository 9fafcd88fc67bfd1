"""The live server thread of the tests and the pytest plugin: how it stops.

No test bounds the wall time: each waits for what it expects, up to `WAIT`."""

from __future__ import annotations

import socket
import threading
import time

import httpx

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.keys import auth

WAIT = 30.0  # seconds to wait for a port to close, due far sooner


def refuses(host: str, port: int) -> bool:
    """Whether a connection to host:port is refused (nothing listens there)."""
    try:
        socket.create_connection((host, port), timeout=WAIT).close()
    except ConnectionRefusedError:
        return True
    return False


def test_a_server_stopped_with_waiting_has_closed_its_port() -> None:
    live = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    live.stop()
    assert refuses(live.host, live.port)


def test_a_server_stopped_without_waiting_closes_its_port_on_its_own() -> None:
    live = LiveServer(create_app(Settings(clock_mode="frozen")), tls=True).start()
    with httpx.Client(verify=live.client_context(), headers=auth()) as client:
        assert client.get(f"{live.base_url}/v1/whoami").status_code == 200
    live.stop(wait=False)
    assert live.ca_bundle is not None
    assert not live.ca_bundle.exists()  # the throwaway CA is gone at once
    pause = threading.Event()
    deadline = time.monotonic() + WAIT
    while not refuses(live.host, live.port):
        assert time.monotonic() < deadline, "the stopped server still accepts connections"
        pause.wait(0.01)
