"""How each figure is measured against a running server, the same way for ours and the
reference (which answers the same routes with fixed bodies).

Load figures reset the server, warm it up, reset again and run wrk, so every figure starts from
the seed and none pays for the one before. Times are wall-clock seconds of the harness process
(`time.monotonic`), never anything the servers report.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import load
from .load import LoadResult
from .servers import KEY, Http, Server

DOCUMENT = "/v1/documents/doc_mock_draft"
PAGE = "/v1/documents?limit=20"
PROBE = "/v1/documents?limit=1"
VAULT = "vault_mock_us"
STEPS = 10  # approval steps of each supply workflow: 9 advances then one completion
SUPPLY_MARGIN = 1.5  # workflows made for this many times the expected advances
SUPPLY_CAP = 20_000
# One key per seeded world of the default and generated seeds: (account, environment).
WORLD_KEYS = ("sk_test_mock_full", "sk_test_mock_eu", "sk_live_mock_full")
DAY_AND_A_SECOND = 86_401


def reset(server: Server) -> None:
    """Back to the seed, and the world of the benchmark key built again."""
    client = server.client()
    try:
        client.json("POST", "/_mock/reset")
        client.json("GET", PROBE)
    finally:
        client.close()


def startups(
    starts: dict[str, Callable[[], Server]], times: int, budget: float
) -> dict[str, tuple[list[float], Server]]:
    """Start each server up to `times` times, alternating between them so a neighbour's burst
    of CPU use cannot land on one side only; fewer when `budget` seconds run out. Each start is
    timed to its first 200; the last server of each side is returned running."""
    began = time.monotonic()
    results: dict[str, tuple[list[float], Server]] = {}
    try:
        for round_ in range(times):
            for side, start in starts.items():
                if side in results:
                    seconds, previous = results[side]
                    if time.monotonic() - began + previous.startup > budget:
                        continue
                    previous.stop()
                server = start()
                seconds = results[side][0] if side in results else []
                seconds.append(server.startup)
                results[side] = (seconds, server)
            if round_ and time.monotonic() - began > budget:
                break
    except BaseException:
        for _, server in results.values():
            server.stop()
        raise
    return results


def static(server: Server, path: str, seconds: float, warmup: float) -> LoadResult:
    """wrk on one GET URL."""
    reset(server)
    if warmup:
        load.run(server.url(path), "static.lua", [KEY], warmup)
    return load.run(server.url(path), "static.lua", [KEY], seconds)


def create(server: Server, seconds: float, warmup: float, run_id: str) -> LoadResult:
    """wrk POSTing documents, each with its own Idempotency-Key."""
    reset(server)
    if warmup:
        load.run(server.url("/v1/documents"), "create.lua", [KEY, VAULT, f"w{run_id}-"], warmup)
        reset(server)
    return load.run(server.url("/v1/documents"), "create.lua", [KEY, VAULT, f"m{run_id}-"], seconds)


def make_workflows(server: Server, count: int, threads: int = 4) -> list[str]:
    """`count` in_progress workflows of STEPS steps, each on a new draft document."""
    steps = [{"assignee": f"approver{i}@bench.example"} for i in range(STEPS)]
    made: list[list[str]] = [[] for _ in range(threads)]
    failures: list[BaseException] = []

    def worker(index: int) -> None:
        client = server.client()
        try:
            for _ in range(index, count, threads):
                doc = client.json("POST", "/v1/documents", {"title": "t", "vault_id": VAULT}, 201)
                body = {"document_id": doc["id"], "steps": steps}
                made[index].append(client.json("POST", "/v1/workflows", body, 201)["id"])
        except BaseException as error:
            failures.append(error)
        finally:
            client.close()

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    if failures:
        raise failures[0]
    return [wf for chunk in made for wf in chunk]


def advance(
    server: Server,
    seconds: float,
    expected_rps: float,
    workdir: Path,
    supply: Callable[[Server, int], list[str]] = make_workflows,
) -> LoadResult:
    """wrk approving steps of pre-made workflows (see lua/advance.lua); the supply is sized
    from `expected_rps` with a margin, and a run that exhausts it is marked invalid."""
    reset(server)
    count = min(SUPPLY_CAP, int(expected_rps * seconds * SUPPLY_MARGIN / STEPS) + 100)
    ids = supply(server, count)
    with tempfile.NamedTemporaryFile("w", dir=workdir, suffix=".ids") as ids_file:
        ids_file.write("\n".join(ids) + "\n")
        ids_file.flush()
        url = server.url("/v1/workflows")
        return load.run(url, "advance.lua", [KEY, ids_file.name, str(STEPS)], seconds)


def page_paths(server: Server, depths: tuple[int, ...]) -> dict[int, str]:
    """The URL of the page at each depth (1 = the first page), found by following next_cursor."""
    client = server.client()
    paths = {1: PAGE}
    try:
        path = PAGE
        for depth in range(2, max(depths) + 1):
            cursor = client.json("GET", path)["next_cursor"]
            if cursor is None:
                raise RuntimeError(f"the list ends before page {depth}")
            path = f"{PAGE}&cursor={cursor}"
            paths[depth] = path
    finally:
        client.close()
    return {depth: paths[depth] for depth in depths}


@dataclass(frozen=True)
class ResetCost:
    call_ms: float  # POST /_mock/reset alone
    ready_ms: float  # the reset and the first read after it (a lazily rebuilt world included)
    samples: int


def reset_cost(server: Server, times: int, budget: float) -> ResetCost:
    """Median cost of a reset, alone and until the next read of the world has answered."""
    client = server.client()
    calls: list[float] = []
    ready: list[float] = []
    began = time.monotonic()
    try:
        reset(server)  # the first reset may free more than a steady-state one
        while len(ready) < times and (not ready or time.monotonic() - began < budget):
            t0 = time.monotonic()
            client.json("POST", "/_mock/reset")
            t1 = time.monotonic()
            client.json("GET", PROBE)
            t2 = time.monotonic()
            calls.append(t1 - t0)
            ready.append(t2 - t0)
    finally:
        client.close()
    return ResetCost(
        1000 * statistics.median(calls), 1000 * statistics.median(ready), samples=len(ready)
    )


def first_audit_read(server: Server) -> float:
    """Milliseconds of the first `GET /v1/audit_logs?limit=1` after start-up: the seeded
    history is synthesized on the first need of a chain, so this read pays for it."""
    client = server.client()
    try:
        began = time.perf_counter()
        client.json("GET", "/v1/audit_logs?limit=1")
        return 1000 * (time.perf_counter() - began)
    finally:
        client.close()


def touch_every_world(server: Server) -> None:
    """Read through every seeded world, so RSS includes them all and their audit trails."""
    for key in WORLD_KEYS:
        client = Http(server.port, key)
        try:
            for prefix in ("/us/v1", "/eu/v1"):
                client.json("GET", f"{prefix}/documents?limit=1")
                client.json("GET", f"{prefix}/audit_logs?limit=1")
        finally:
            client.close()


@dataclass(frozen=True)
class SoakSlice:
    at_s: float  # seconds since the soak began, at the end of the slice
    requests: int
    rps: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    errors: int
    rss_mib: float


def soak(server: Server, seconds: float, slice_seconds: float, run_id: str) -> list[SoakSlice]:
    """POST documents for `seconds`, in slices; after each, the RSS, and the mock clock moved a
    day on so anything kept for a retention period on the clock can expire."""
    reset(server)
    client = server.client()
    slices: list[SoakSlice] = []
    began = time.monotonic()
    try:
        for index in range(max(1, round(seconds / slice_seconds))):
            result = load.run(
                server.url("/v1/documents"),
                "create.lua",
                [KEY, VAULT, f"s{run_id}-{index}-"],
                slice_seconds,
            )
            slices.append(
                SoakSlice(
                    at_s=time.monotonic() - began,
                    requests=result.requests,
                    rps=result.rps,
                    p50_ms=result.p50_ms,
                    p99_ms=result.p99_ms,
                    max_ms=result.max_ms,
                    errors=result.errors,
                    rss_mib=server.rss_kib() / 1024,
                )
            )
            client.json("POST", "/_mock/clock/advance", {"seconds": DAY_AND_A_SECOND})
    finally:
        client.close()
    return slices
