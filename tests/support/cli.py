"""The command line as a subprocess: how to start it, and a loopback port for it to serve on."""

from __future__ import annotations

import socket
import sys

MOCKSERVER = [sys.executable, "-m", "mockserver"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
