"""What counting the metrics costs a request: GET /v1/documents/{id} under wrk on a server with
metrics on (the default) beside one started with `--no-metrics` (alternating rounds, the median
round of each side); in-process, the same request through the whole app with metrics on and
off, and the metrics' two middleware alone around a request answered at once (each A/B in
turns, request by request, the medians: a busy machine slows both sides alike).

    python -m benchmarks.metrics_cost --seconds 3 --rounds 3    # alone, about 40 s
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.config import Settings
from mockserver.core.observed import CURRENT
from mockserver.engine.sandbox import SandboxState
from mockserver.web.app import create_app
from mockserver.web.middleware.journal import note_observed
from mockserver.web.middleware.observability import Observe

from . import figures, load
from .load import LoadResult, median_round
from .servers import KEY, Server, ours_command, running, spawn

COUNTS = 100_000  # requests per side of the middleware's own A/B
REQUESTS = 20_000  # in-process requests per side of the stack's A/B, alternating one by one


@dataclass
class Cost:
    on: LoadResult
    off: LoadResult
    count_us: float  # the metrics' middleware's own time per request, in-process
    stack_us: tuple[float, float]  # a request through the whole app in-process: on, off


def counting_us() -> float:
    """Microseconds per request of the metrics' middleware (`Observe`, with the counting, and
    the journal's note of what the request decided) around a request the sandbox answers at
    once: the same request with and without them, in turns, the median of each, subtracted."""
    sandbox = SandboxState.build(Settings(clock_mode="frozen"))
    route = SimpleNamespace(path="/v1/documents/{doc_id}")
    caller = SimpleNamespace(account_id="acct_mock_us")
    state = SimpleNamespace(principal=caller, request_id="req_x", rule=None, explain=None)

    async def answered(scope: Scope, receive: Receive, send: Send) -> None:
        scope["route"] = route
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    def below(app: ASGIApp) -> ASGIApp:
        async def stepped(scope: Scope, receive: Receive, send: Send) -> None:
            scope["state"].update(request=state, sandbox=sandbox)  # as the journal's step does
            await app(scope, receive, send)
            observed = CURRENT.get()
            if observed is not None:  # as the journal's step does, closing the request
                note_observed(observed, state, sandbox)  # type: ignore[arg-type]

        return stepped

    bare = below(answered)
    observed = Observe(below(answered), sandbox)
    scope = {"type": "http", "method": "GET", "path": figures.DOCUMENT, "headers": []}

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        pass

    async def run() -> float:
        times: dict[bool, list[float]] = {True: [], False: []}
        clock = time.perf_counter
        for _ in range(COUNTS):
            for on, app in ((True, observed), (False, bare)):
                started = clock()
                await app({**scope, "state": {}}, receive, send)
                times[on].append(clock() - started)
        return (statistics.median(times[True]) - statistics.median(times[False])) * 1e6

    return asyncio.run(run())


def stack_us() -> tuple[float, float]:
    """Microseconds per request through the whole app, in-process (no socket, no client):
    metrics on, and off; the two apps take turns request by request (so a busy machine slows
    both alike), the median of each side."""
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

    async def run() -> tuple[float, float]:
        times: dict[bool, list[float]] = {True: [], False: []}
        clock = time.perf_counter
        async with apps[True].state.sandbox.running(), apps[False].state.sandbox.running():
            for number in range(REQUESTS):
                for on in (True, False) if number % 2 == 0 else (False, True):
                    app = apps[on]
                    started = clock()
                    await app({**scope, "state": {}}, receive, send)
                    times[on].append(clock() - started)
        return statistics.median(times[True]) * 1e6, statistics.median(times[False]) * 1e6

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
    print(f"the metrics' middleware in-process: {cost.count_us:.2f} us per request")
    stack_on, stack_off = cost.stack_us
    print(
        f"whole app in-process: {stack_on:.1f} us on, {stack_off:.1f} us off "
        f"({stack_on - stack_off:+.1f} us per request)"
    )


if __name__ == "__main__":
    main()
