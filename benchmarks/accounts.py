"""What an account sandbox costs: making and removing one per test over HTTP, and the memory of
an idle one.

Making and removing: `POST /_mock/accounts` (a named account with a frozen clock of its own,
as `mock_account` makes it) then `DELETE /_mock/accounts/{id}`, in-process through the whole
HTTP path and over a real socket with a keep-alive client; the median pair counts. Memory:
Python's allocations (tracemalloc) for `IDLE` accounts made and used once (one `whoami`
each), divided by their number. A benchmark, not a test: nothing asserts a time.

    python -m benchmarks.accounts
"""

from __future__ import annotations

import statistics
import tracemalloc
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import httpx

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app

PAIRS = 300
IDLE = 500


@dataclass
class AccountCosts:
    inprocess_ms: float  # the median create + delete, in-process
    socket_ms: float  # the same over a socket
    idle_kib: float  # Python memory per idle account


def _pairs(client: Any, count: int, tag: str) -> float:
    times = []
    for number in range(count):
        started = perf_counter()
        made = client.post(
            "/_mock/accounts", json={"name": f"{tag} {number}", "clock": {"mode": "frozen"}}
        )
        gone = client.delete(f"/_mock/accounts/{made.json()['id']}")
        times.append((perf_counter() - started) * 1000)
        if made.status_code != 201 or gone.status_code != 200:
            raise RuntimeError(f"account {number}: {made.status_code} {gone.status_code}")
    return statistics.median(times)


def _idle_kib(count: int) -> float:
    app = create_app(Settings(clock_mode="frozen", rate_limit=False))
    with inprocess_client(app) as client:
        _pairs(client, 20, "warm")
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for number in range(count):
            made = client.post("/_mock/accounts", json={"name": f"idle {number}"}).json()
            client.get("/v1/whoami", headers={"Authorization": f"Bearer {made['keys']['full']}"})
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    # The journal holds the requests too (bounded by its size): counted, as a server holds them.
    return (after - before) / count / 1024


def measure(pairs: int = PAIRS, idle: int = IDLE) -> AccountCosts:
    app = create_app(Settings(clock_mode="frozen", rate_limit=False))
    with inprocess_client(app) as client:
        _pairs(client, 30, "warm")
        inprocess = _pairs(client, pairs, "in-process")
    server = LiveServer(create_app(Settings(clock_mode="frozen", rate_limit=False))).start()
    try:
        with httpx.Client(base_url=server.base_url) as client:
            _pairs(client, 30, "warm")
            socket = _pairs(client, pairs, "socket")
    finally:
        server.stop()
    return AccountCosts(inprocess, socket, _idle_kib(idle))


if __name__ == "__main__":
    print(vars(measure()))
