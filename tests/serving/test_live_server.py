"""How the live server thread of the tests and the pytest plugin stops."""

from __future__ import annotations

import socket

import httpx

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.keys import auth


def refuses(host: str, port: int) -> bool:
    """Whether a connection to host:port is refused (nothing listens there)."""
    try:
        socket.create_connection((host, port), timeout=30).close()
    except ConnectionRefusedError:
        return True
    return False


def test_a_stopped_server_has_closed_its_port() -> None:
    live = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    live.stop()
    assert refuses(live.host, live.port)


def test_a_server_told_to_stop_is_waited_for_by_a_later_stop() -> None:
    live = LiveServer(create_app(Settings(clock_mode="frozen")), tls=True).start()
    with httpx.Client(verify=live.client_context(), headers=auth()) as client:
        assert client.get(f"{live.base_url}/v1/whoami").status_code == 200
    live.stop(wait=False)  # returns while uvicorn shuts down
    live.stop()
    assert refuses(live.host, live.port)
    assert live.ca_bundle is not None
    assert not live.ca_bundle.exists()  # the throwaway CA is gone
