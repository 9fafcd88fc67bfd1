"""The command line as a subprocess: how to start it, a loopback port for it to serve on, and a
`mockserver run` to watch and stop."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

MOCKSERVER = [sys.executable, "-m", "mockserver"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


START_TIMEOUT = 60.0  # seconds a server may take to print its start-up line (a busy machine)
STOP_TIMEOUT = 10.0  # seconds a stopped server may take to exit (the contract is 5 s)


class Run:
    """`mockserver run OPTIONS` as a subprocess, its output in files (a pipe nobody reads could
    fill up and stop it), and the environment `env` over the test's own, less any
    `MOCKSERVER_*` variable the test's environment has."""

    def __init__(self, folder: Path, *options: str, env: dict[str, str] | None = None) -> None:
        self.folder = folder
        self.options = options
        base = {k: v for k, v in os.environ.items() if not k.startswith("MOCKSERVER_")}
        self.env = {**base, **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Run:
        self.stdout = self.folder / "stdout.txt"
        self.stderr = self.folder / "stderr.txt"
        with self.stdout.open("wb") as out, self.stderr.open("wb") as err:
            self.process = subprocess.Popen(
                [*MOCKSERVER, "run", *self.options], stdout=out, stderr=err, env=self.env
            )
        return self

    def output(self) -> str:
        return self.stdout.read_text(errors="replace")

    def errors(self) -> str:
        return self.stderr.read_text(errors="replace")

    def wait_for_line(self, text: str, timeout: float = START_TIMEOUT) -> str:
        """The first line of stdout that holds `text`, once printed."""
        assert self.process is not None
        pause = threading.Event()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.output().splitlines():
                if text in line:
                    return line
            if self.process.poll() is not None:
                raise AssertionError(
                    f"exited {self.process.returncode} before printing {text!r}:\n"
                    f"{self.output()}{self.errors()}"
                )
            pause.wait(0.05)
        raise AssertionError(f"no line with {text!r} within {timeout} s:\n{self.output()}")

    def listening(self) -> tuple[str, int]:
        """(the start-up line, the port it names) once the server serves."""
        line = self.wait_for_line("mockserver listening on ")
        found = re.search(r"listening on https?://127\.0\.0\.1:(\d+) ", line)
        assert found is not None, line
        return line, int(found[1])

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Send `signum`, and the exit status once the process has exited (waited for, at most
        STOP_TIMEOUT seconds)."""
        assert self.process is not None
        self.process.send_signal(signum)
        return self.process.wait(timeout=STOP_TIMEOUT)

    def wait(self, timeout: float = START_TIMEOUT) -> int:
        assert self.process is not None
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)
