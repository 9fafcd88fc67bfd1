"""Server processes: spawn one on a free loopback port, time it to its first 200, read its RSS,
and stop it by the PID we started, never by name.

Talking to a server outside wrk (probes, setup, walks) goes through `Http`, a keep-alive
`http.client` connection: the harness needs nothing but the standard library and wrk.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

HOST = "127.0.0.1"
KEY = "sk_test_mock_full"
START_TIMEOUT = 180.0  # seconds a server may take to its first 200 before the run gives up
STOP_TIMEOUT = 10.0


def free_port() -> int:
    """A port free on loopback right now (the server binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


class Http:
    """One keep-alive HTTP/1.1 connection to a server, with the benchmark key by default."""

    def __init__(self, port: int, key: str = KEY, timeout: float = 60.0) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        self.key = key

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, bytes]:
        """(status, body) of one request; the connection is reused, and opened again once if
        the server closed it while idle (uvicorn closes keep-alive connections after 5 s)."""
        sent = {"Authorization": f"Bearer {self.key}", **(headers or {})}
        payload = None
        if body is not None:
            payload = orjson.dumps(body)
            sent["Content-Type"] = "application/json"
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=payload, headers=sent)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                self.conn.close()  # the next request() connects again
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
        """The parsed body of a request that must answer `expect`."""
        status, raw = self.request(method, path, body)
        if status != expect:
            raise RuntimeError(f"{method} {path}: {status} {raw[:200]!r}")
        return orjson.loads(raw)

    def close(self) -> None:
        self.conn.close()


def first_ok(port: int, path: str, deadline: float, process: subprocess.Popen[bytes]) -> None:
    """Poll `path` until it answers 200; raise if the process dies or `deadline` passes."""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with status {process.returncode} before serving")
        client = Http(port, timeout=max(0.1, deadline - time.monotonic()))
        try:
            status, _ = client.request("GET", path)
            if status == 200:
                return
        except OSError:
            time.sleep(0.005)
        finally:
            client.close()
    raise RuntimeError(f"no 200 from {path} within the start-up timeout")


def rss_kib(pid: int) -> int:
    """Resident set size of process `pid` from /proc, in KiB (Linux)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for PID {pid}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to a process we started, SIGKILL to the same PID if it does not exit in time."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_TIMEOUT)


@dataclass
class Server:
    """A server we spawned: its command, port, PID and the seconds it took to its first 200."""

    name: str
    command: list[str]
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    startup: float = 0.0
    rss_samples: list[int] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_kib(self) -> int:
        """Resident set size from /proc, in KiB (Linux)."""
        return rss_kib(self.pid)

    def client(self, key: str = KEY, timeout: float = 60.0) -> Http:
        return Http(self.port, key, timeout)

    def url(self, path: str) -> str:
        return f"http://{HOST}:{self.port}{path}"

    def stop(self) -> None:
        stop(self.process)


# Not passed on to the servers: this sandbox sets it for every process, which makes each start
# compile every module of the server's own source again (no `__pycache__`); an installed
# server, ours or the reference, caches its bytecode.
NOT_PASSED_ON = ("PYTHONDONTWRITEBYTECODE",)


def server_environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """The environment a server starts with: ours, without `NOT_PASSED_ON`, plus `extra`."""
    base = {name: value for name, value in os.environ.items() if name not in NOT_PASSED_ON}
    return {**base, **(extra or {})}


def spawn(
    name: str,
    command: Sequence[str],
    probe: str,
    workdir: Path,
    env: Mapping[str, str] | None = None,
) -> Server:
    """Start `command` (with `{port}` filled in, `env` added to the environment) and return
    once `probe` answers 200."""
    port = free_port()
    argv = [part.format(port=port) for part in command]
    log = workdir / f"{name}-{port}.log"
    with open(log, "wb") as out:
        started = time.monotonic()
        process = subprocess.Popen(
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=repo_root(),
            env=server_environment(env),
        )
    server = Server(name, argv, port, process, log)
    try:
        first_ok(port, probe, started + START_TIMEOUT, process)
    except BaseException:
        server.stop()
        tail = log.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"{name} did not start: {' '.join(argv)}\n{tail}") from None
    server.startup = time.monotonic() - started
    return server


@contextlib.contextmanager
def running(server: Server) -> Iterator[Server]:
    """Stop the server however the block ends (Ctrl-C included)."""
    try:
        yield server
    finally:
        server.stop()


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def ours_command(seed: Path | None) -> list[str]:
    """`mockserver run` as a user starts it for a load test: frozen clock, no rate limit."""
    command = [sys.executable, "-m", "mockserver", "run", "--host", "127.0.0.1"]
    command += ["--port", "{port}", "--clock", "frozen", "--no-rate-limit"]
    return command + (["--seed", str(seed)] if seed else [])
