"""`mockserver run --state-dir DIR` as a subprocess: start it, talk to it, kill it, restart it."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import httpx

from tests.support.cli import MOCKSERVER, free_port
from tests.support.keys import auth

START_TIMEOUT = 30.0  # seconds for a server (and its replay) to answer


class DurableServer:
    """One process serving a state directory; `start` again after `kill` to restart on it."""

    def __init__(self, state_dir: Path, *options: str) -> None:
        self.state_dir = state_dir
        self.options = options
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.clients: list[httpx.Client] = []

    def command(self, port: int) -> list[str]:
        return [
            *MOCKSERVER,
            "run",
            "--port",
            str(port),
            "--state-dir",
            str(self.state_dir),
            *self.options,
        ]

    def start(self) -> httpx.Client:
        """Start the process and wait until it answers (after its replay); a client for it."""
        self.port = free_port()
        self.errors = (self.state_dir.parent / "server-errors.txt").open("w+b")
        self.process = subprocess.Popen(
            self.command(self.port), stdout=subprocess.DEVNULL, stderr=self.errors
        )
        client = self.client()
        pause = threading.Event()
        for _ in range(int(START_TIMEOUT / 0.02)):
            try:
                client.get("/_mock/clock")
                return client
            except httpx.TransportError:
                if self.process.poll() is not None:
                    raise AssertionError(f"the server exited: {self.stderr()}") from None
                pause.wait(0.02)
        raise AssertionError(f"the server did not answer in time: {self.stderr()}")

    def stderr(self) -> str:
        """What the server wrote to stderr so far."""
        self.errors.seek(0)
        return self.errors.read().decode(errors="replace")

    def client(self, timeout: float = 30.0) -> httpx.Client:
        """A client of the running process (closed when it stops)."""
        client = httpx.Client(
            base_url=f"http://127.0.0.1:{self.port}", headers=auth(), timeout=timeout
        )
        self.clients.append(client)
        return client

    def kill(self) -> None:
        """kill -9: no shutdown of any kind."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self._close()

    def stop(self) -> None:
        """A clean stop (SIGTERM), as Ctrl-C or a service manager does it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self._close()

    def _close(self) -> None:
        for client in self.clients:
            client.close()
        self.clients.clear()
        self.errors.close()
        self.process = None

    def run_to_exit(self, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """Start a process that is expected to refuse: its exit status and output."""
        return subprocess.run(
            self.command(free_port()), capture_output=True, text=True, timeout=timeout
        )
