"""The API has no WebSocket: an upgrade request is refused as uvicorn's own WebSocket protocol
refuses one the app closes at once, with 403."""

from __future__ import annotations

import socket

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app

UPGRADE = (
    b"GET /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n\r\n"
)


def test_a_websocket_upgrade_is_refused_with_403() -> None:
    live = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    try:
        with socket.create_connection((live.host, live.port), timeout=60) as sock:
            sock.sendall(UPGRADE)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
    finally:
        live.stop()
    assert answer.split(b"\r\n")[0] == b"HTTP/1.1 403 Forbidden"
