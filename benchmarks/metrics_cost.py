"""What counting the metrics costs a request: GET /v1/documents/{id} under wrk on a server with
metrics on (the default) beside one started with `--no-metrics` (alternating rounds, the median
round of each side), and, in-process, the counting's own time per request (a new `Observed`,
made current and let go, and counted) with `timeit`.

    python -m benchmarks.metrics_cost --seconds 3 --rounds 3    # alone, about 40 s
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import timeit
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette
from starlette.types import Message

from mockserver.core.config import Settings
from mockserver.core.observed import enter, leave
from mockserver.engine.metrics import Metrics
from mockserver.engine.sandbox import SandboxState
from mockserver.web.app import create_app

from . import figures, load
from .load import LoadResult, median_round
from .servers import KEY, Server, ours_command, running, spawn

COUNTS = 200_000  # requests counted per timeit repeat
BATCH = 300  # in-process requests per batch of the stack's A/B
BATCHES = 60  # batches per side, alternating; the fastest batch of each side counts


@dataclass
class Cost:
    on: LoadResult
    off: LoadResult
    count_us: float  # the counting's own time per request, in-process
    stack_us: tuple[float, float]  # a request through the whole app in-process: on, off


def counting_us() -> float:
    """Microseconds per request of what `Observe` adds to it for the metrics (best of 5)."""
    metrics = Metrics(SandboxState.build(Settings(clock_mode="frozen")))

    def one() -> None:
        observed = metrics.observed()
        token = enter(observed)
        observed.route, observed.account = "/v1/documents/{doc_id}", "acct_mock_us"
        leave(token)
        metrics.count("GET", 200, 0.0004, observed)

    best = min(timeit.repeat(one, number=COUNTS, repeat=5))
    return best / COUNTS * 1e6


def stack_us() -> tuple[float, float]:
    """Microseconds per request through the whole app, in-process (no socket, no client):
    metrics on, and off; alternating batches, the fastest batch of each side."""
    apps = {
        on: create_app(Settings(clock_mode="frozen", rate_limit=False, metrics=on))
        for on in (True, False)
    }
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": figures.DOCUMENT,
        "raw_path": figures.DOCUMENT.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {KEY}".encode())],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message

    async def batch(app: Starlette) -> float:
        started = time.perf_counter()
        for _ in range(BATCH):
            await app({**scope, "state": {}}, receive, send)
        return (time.perf_counter() - started) / BATCH * 1e6

    async def run() -> tuple[float, float]:
        best = {True: float("inf"), False: float("inf")}
        async with apps[True].state.sandbox.running(), apps[False].state.sandbox.running():
            for number in range(BATCHES):
                for on in (True, False) if number % 2 == 0 else (False, True):
                    best[on] = min(best[on], await batch(apps[on]))
        return best[True], best[False]

    return asyncio.run(run())


def one_round(server: Server, seconds: float, warmup: float) -> LoadResult:
    url = server.url(figures.DOCUMENT)
    if warmup:
        load.run(url, "static.lua", [KEY], warmup)
    return load.run(url, "static.lua", [KEY], seconds)


def measure(on: Server, off: Server, seconds: float, warmup: float, rounds: int) -> Cost:
    """Alternating rounds on the two servers; the median round of each."""
    results: dict[str, list[LoadResult]] = {"on": [], "off": []}
    servers = [("on", on), ("off", off)]
    for number in range(rounds):
        for side, server in servers if number % 2 == 0 else servers[::-1]:
            results[side].append(one_round(server, seconds, warmup))
    on_result, off_result = median_round(results["on"]), median_round(results["off"])
    return Cost(on_result, off_result, counting_us(), stack_us())


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.metrics_cost")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        logs = Path(work)
        on_server = spawn("metrics-on", ours_command(None), figures.PROBE, logs)
        off_server = spawn(
            "metrics-off", [*ours_command(None), "--no-metrics"], figures.PROBE, logs
        )
        with running(on_server) as on, running(off_server) as off:
            cost = measure(on, off, args.seconds, args.warmup, args.rounds)
    per_request = (1 / cost.on.rps - 1 / cost.off.rps) * 1e6
    print(f"metrics on:  {cost.on.rps:8.0f} req/s  p99 {cost.on.p99_ms:.2f} ms")
    print(f"metrics off: {cost.off.rps:8.0f} req/s  p99 {cost.off.p99_ms:.2f} ms")
    print(f"on over off: {cost.on.rps / cost.off.rps:.3f}x throughput, {per_request:+.1f} us/req")
    print(f"counting in-process: {cost.count_us:.2f} us per request")
    stack_on, stack_off = cost.stack_us
    print(
        f"whole app in-process: {stack_on:.1f} us on, {stack_off:.1f} us off "
        f"({stack_on - stack_off:+.1f} us per request)"
    )


if __name__ == "__main__":
    main()
