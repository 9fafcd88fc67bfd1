"""`closed_port()`, the address of the connection-refused tests: refused, and kept so."""

from __future__ import annotations

import errno
import socket

import httpx
import pytest

from mockserver.testing.receiver import WebhookReceiver, closed_port, release_port


def test_a_connection_to_a_closed_port_is_refused() -> None:
    port = closed_port()
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"http://127.0.0.1:{port}/hooks", timeout=5)


def test_no_other_socket_can_take_a_closed_port() -> None:
    port = closed_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the test servers do
        with pytest.raises(OSError, match="in use") as refused:
            other.bind(("127.0.0.1", port))
    assert refused.value.errno == errno.EADDRINUSE
    with pytest.raises(OSError, match="in use"):
        WebhookReceiver(port=port)


def test_each_closed_port_is_another_port() -> None:
    assert len({closed_port() for _ in range(5)}) == 5


def test_a_released_port_can_be_taken() -> None:
    port = closed_port()
    release_port(port)
    with WebhookReceiver(port=port) as receiver:
        assert httpx.post(receiver.url, content=b"{}", timeout=5).status_code == 200
