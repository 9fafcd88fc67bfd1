"""The CPU work of one request, counted: instructions per request under callgrind.

Requests per second on a shared two-core machine move with whatever else runs; the number of
instructions a server executes to answer a request does not (valgrind's callgrind counts them,
the same for the same binary and inputs, whatever the other core does). Each side is started
under callgrind, warmed up, its counters zeroed, sent `REQUESTS` requests on four keep-alive
connections, and its counters dumped: the total over the requests is the figure. It counts user
space only: the kernel's share (reads, writes, the loopback TCP stack) is not in it.

    python -m benchmarks --only instructions
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from .figures import DOCUMENT, PAGE, VAULT
from .servers import Http, Server, running, spawn

REQUESTS = 2_000
WARMUP = 300
CONNECTIONS = 4
KINDS = ("get", "list", "create")
_TOTAL = re.compile(rb"^(?:summary|totals): (\d+)", re.MULTILINE)


def available() -> bool:
    """Whether valgrind and callgrind_control are installed."""
    return shutil.which("valgrind") is not None and shutil.which("callgrind_control") is not None


def _requests(kind: str, tag: str) -> Callable[[Http, int], None]:
    """What one request of `kind` is; `tag` keeps idempotency keys unique per run."""

    def send(client: Http, number: int) -> None:
        if kind == "get":
            status, _ = client.request("GET", DOCUMENT)
        elif kind == "list":
            status, _ = client.request("GET", PAGE)
        else:
            body = {"title": "Benchmark NDA", "vault_id": VAULT, "metadata": {"kind": "nda"}}
            key = {"Idempotency-Key": f"{tag}-{number}"}
            status, _ = client.request("POST", "/v1/documents", body, key)
        if status >= 300:
            raise RuntimeError(f"{kind} request {number}: status {status}")

    return send


def _drive(server: Server, send: Callable[[Http, int], None], count: int, start: int) -> None:
    clients = [server.client() for _ in range(CONNECTIONS)]
    try:
        for number in range(start, start + count):
            send(clients[number % CONNECTIONS], number)
    finally:
        for client in clients:
            client.close()


def _control(pid: int, option: str) -> None:
    subprocess.run(
        ["callgrind_control", option, str(pid)], check=True, capture_output=True, timeout=60
    )


def per_request(
    name: str, command: list[str], probe: str, workdir: Path, kind: str, tag: str
) -> float:
    """Instructions per request of `kind` for the server `command` starts."""
    out = workdir / f"callgrind.{name}.{kind}"
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p"]
    server = spawn(f"callgrind-{name}", [*valgrind, *command], probe, workdir)
    send = _requests(kind, tag)
    with running(server):
        _drive(server, send, WARMUP, 0)
        _control(server.pid, "-z")
        _drive(server, send, REQUESTS, WARMUP)
        _control(server.pid, "-d")
        dumped = Path(f"{out}.{server.pid}.1")
        match = _TOTAL.search(dumped.read_bytes())
    if match is None:
        raise RuntimeError(f"no instruction total in {dumped}")
    return int(match.group(1)) / REQUESTS
