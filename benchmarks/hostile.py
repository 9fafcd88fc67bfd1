"""API latency and server memory while a hostile party is active, against the same calls
without it.

    python -m benchmarks --only hostile          # the rows of `make bench`
    python -m benchmarks.hostile [--calls 500]   # the table alone

Each party gets a fresh `mockserver run` (frozen clock, no rate limit) and is played by a child
process of its own (`--play`), so its threads do not compete with the timing client for the
harness's GIL:

- webhook receivers (tests/support/hostile.py) that hang, drip their answer a byte a second,
  answer 200 with a 1 GiB body, redirect, or reset the connection: 16 endpoints (the most an
  account may have) point at one, a document is created so each has an attempt under way, and
  every document created meanwhile queues one more event for each;
- `slow_clients`: 20 connections sending a request head a byte a second;
- `idle_connections`: 500 connections that send nothing.

The same 500 calls (list documents, create a document, get one) are spread over `SECONDS`, past
the 10 s a hanging attempt, a slow head or an idle connection is given, so each run sees those
limits act. A party's run sits between two runs of its baseline on the same server, so a drift
of the shared machine moves both sides alike: the baseline is no party, except for `gigabyte`,
whose 200 makes every delivery flow; its baseline is a receiver answering 200 at once, so the
figure is what the 1 GiB body adds, not what deliveries cost by themselves. Targets: p99 at most
`P99_RATIO` times the baseline's, and the server's RSS growth over a run with the party (from
its start, once set up, to the end) under `RSS_BOUND_MIB`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .servers import HOST, Http, Server, ours_command, repo_root, running, spawn

NONE = "none"
RECEIVERS = ("hang", "drip", "gigabyte", "redirect", "reset")
CONTROL = "ok"  # a receiver answering 200 at once: the baseline of `gigabyte`
CLIENTS = ("slow_clients", "idle_connections")
PARTIES = (*RECEIVERS, *CLIENTS)
CALLS = 500
WARMUP = 100
ROUNDS = 1
# Each run's calls are spread over this long: past the 10 s that a hanging or dripping
# receiver's attempt, a slow client's head and an idle connection are each given.
SECONDS = 11.0
ENDPOINTS_MAX = 16  # per account and environment (mockserver.webhooks.endpoints.ENDPOINTS_MAX)
SLOW_CLIENTS = 20
IDLE_CONNECTIONS = 500
P99_RATIO = 2.0
RSS_BOUND_MIB = 32.0
PROBE = "/v1/documents?limit=1"


@dataclass(frozen=True)
class Calls:
    """One timed run of the call mix."""

    party: str
    p50_ms: float
    p99_ms: float
    max_ms: float
    rss_start_mib: float
    rss_end_mib: float
    server_cpu_s: float  # the server's CPU time over the calls
    party_cpu_s: float  # the party's CPU time, from its start to its end
    seconds: float  # wall time of the calls
    attempts: int  # webhook attempts made by the end of the calls (from the journal)


@dataclass(frozen=True)
class Figure:
    """A party's runs, each between two runs of its baseline, on the same server."""

    party: str
    baseline: str  # `none`, or `ok` for a receiver that answers 2xx (deliveries flow)
    calls: int
    runs: list[Calls]  # with the party
    bases: list[Calls]  # its baseline, before the first run and after each

    @property
    def during(self) -> Calls:
        return median_run(self.runs)

    @property
    def baseline_p99_ms(self) -> float:
        return median_run(self.bases).p99_ms

    @property
    def p99_ratio(self) -> float:
        return self.during.p99_ms / self.baseline_p99_ms

    @property
    def rss_growth_mib(self) -> float:
        """The most the server's RSS grew over one run with the party."""
        return max(run.rss_end_mib - run.rss_start_mib for run in self.runs)


def baseline_of(kind: str) -> str:
    """What a party is compared with: a receiver answering 2xx makes every delivery flow, and
    the deliveries' own work is the same with a well-behaved receiver; the others, nothing."""
    return "ok" if kind == "gigabyte" else NONE


def timed_calls(client: Http, calls: int, tag: str, seconds: float = 0.0) -> list[float]:
    """Latency of each call of a fixed mix, in ms, the calls spread evenly over `seconds` (or
    back to back); any answer but the expected one raises."""
    latencies = []
    begin = time.perf_counter()
    for i in range(calls):
        pause = begin + i * seconds / calls - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        started = time.perf_counter()
        if i % 3 == 0:
            client.json("GET", "/v1/documents?limit=20")
        elif i % 3 == 1:
            body = {"title": f"{tag} {i}", "vault_id": "vault_mock_us"}
            client.json("POST", "/v1/documents", body, 201)
        else:
            client.json("GET", "/v1/documents/doc_mock_draft")
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


@dataclass
class Played:
    """What a party's child process reports when it ends."""

    cpu_s: float = 0.0  # its user and system CPU time


@contextmanager
def party(kind: str, server: Server) -> Iterator[Played]:
    """The hostile party `kind` at work against `server` for the block (none for `none`)."""
    played = Played()
    if kind == NONE:
        yield played
        return
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.hostile", "--play", kind, "--port", str(server.port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=repo_root(),
    )
    at_start = ""
    try:
        assert child.stdout is not None
        # A receiver's URL, or "ready"; then the CPU the child took to get there.
        ready, _, at_start = child.stdout.readline().decode().strip().partition(" ")
        if not ready:
            raise RuntimeError(f"the {kind} party did not start")
        if kind in (*RECEIVERS, CONTROL):
            client = server.client()
            try:
                for _ in range(ENDPOINTS_MAX):
                    body = {"url": ready, "events": ["document.created"]}
                    client.json("POST", "/v1/webhook_endpoints", body, 201)
                body = {"title": "first", "vault_id": "vault_mock_us"}
                client.json("POST", "/v1/documents", body, 201)
            finally:
                client.close()
            time.sleep(0.5)  # the first attempts reach the receiver
        yield played
    finally:
        assert child.stdin is not None
        child.stdin.close()  # the party ends, and says what CPU it took
        try:
            assert child.stdout is not None
            played.cpu_s = float(child.stdout.readline() or 0) - float(at_start or 0)
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)
        finally:
            if child.stdout is not None:
                child.stdout.close()


def timed(server: Server, client: Http, kind: str, calls: int, seconds: float) -> Calls:
    """The call mix while `kind` plays, with the server's RSS and CPU around it."""
    with party(kind, server) as played:
        start = server.rss_kib() / 1024  # once set up: httpx imported, connections open
        cpu, began = cpu_seconds(server), time.perf_counter()
        latencies = sorted(timed_calls(client, calls, kind, seconds))
        cpu, wall = cpu_seconds(server) - cpu, time.perf_counter() - began
        end = server.rss_kib() / 1024
        journal = client.json("GET", "/_mock/webhooks/deliveries")["data"]
    client.json("POST", "/_mock/reset")  # endpoints, deliveries and attempts under way go
    return Calls(
        party=kind,
        p50_ms=statistics.median(latencies),
        p99_ms=latencies[max(0, int(len(latencies) * 0.99) - 1)],
        max_ms=latencies[-1],
        rss_start_mib=start,
        rss_end_mib=end,
        server_cpu_s=cpu,
        party_cpu_s=played.cpu_s,
        seconds=wall,
        attempts=sum(len(delivery["attempts"]) for delivery in journal),
    )


def measure(
    server: Server, kind: str, calls: int = CALLS, seconds: float = SECONDS, rounds: int = ROUNDS
) -> Figure:
    """On a fresh server, after a warm-up: the baseline, then the party and the baseline again,
    `rounds` times, each run `calls` calls over `seconds`; the median run of each side counts,
    so neither a burst of other work on the machine nor its drift decides the ratio."""
    baseline = baseline_of(kind)
    client = server.client()
    try:
        timed_calls(client, WARMUP, "warm-up")
        bases = [timed(server, client, baseline, calls, seconds)]
        runs = []
        for _ in range(rounds):
            runs.append(timed(server, client, kind, calls, seconds))
            bases.append(timed(server, client, baseline, calls, seconds))
    finally:
        client.close()
    return Figure(kind, baseline, calls, runs, bases)


def median_run(runs: list[Calls]) -> Calls:
    """The run of median p99 (the lower middle one of an even count)."""
    return sorted(runs, key=lambda run: run.p99_ms)[(len(runs) - 1) // 2]


def cpu_seconds(server: Server) -> float:
    """The server process's user and system CPU time so far (Linux /proc)."""
    with open(f"/proc/{server.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fresh_server(workdir: Path, name: str) -> Server:
    return spawn(name, ours_command(None), PROBE, workdir)


def measure_all(
    workdir: Path,
    parties: tuple[str, ...] = PARTIES,
    calls: int = CALLS,
    seconds: float = SECONDS,
    rounds: int = ROUNDS,
) -> list[Figure]:
    """One figure per party, each on a server of its own."""
    figures = []
    for kind in parties:
        with running(fresh_server(workdir, f"hostile-{kind}")) as server:
            figures.append(measure(server, kind, calls, seconds, rounds))
    return figures


# -- the child process that plays a party ------------------------------------------------


def play(kind: str, port: int) -> None:
    """Play `kind` against the server on `port` until stdin closes; the first line printed is
    a receiver's URL, or `ready`, and the CPU seconds taken so far; the last the CPU seconds
    at the end."""
    try:
        _play(kind, port)
    finally:
        print(_cpu(), flush=True)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _play(kind: str, port: int) -> None:
    sys.path.insert(0, str(repo_root()))
    from tests.support.hostile import HostileReceiver, SlowClient, idle_connections

    if kind in (*RECEIVERS, CONTROL):
        with HostileReceiver(kind, interval=1.0) as receiver:
            print(receiver.url, _cpu(), flush=True)
            sys.stdin.read()
        return
    if kind == "slow_clients":
        slow = [SlowClient(HOST, port, interval=1.0).__enter__() for _ in range(SLOW_CLIENTS)]
        print("ready", _cpu(), flush=True)
        sys.stdin.read()
        for client in slow:
            client.__exit__(None, None, None)
        return
    sockets = idle_connections(HOST, port, IDLE_CONNECTIONS)
    print("ready", _cpu(), flush=True)
    sys.stdin.read()
    for sock in sockets:
        sock.close()


def table(figures: list[Figure]) -> str:
    lines = [
        "| party | baseline | p50 ms | p99 ms | baseline p99 ms | p99 / baseline | max ms "
        "| RSS growth MiB | server CPU / wall | party CPU / wall |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        d = f.during
        lines.append(
            f"| {f.party} | {f.baseline} | {d.p50_ms:.2f} | {d.p99_ms:.2f} "
            f"| {f.baseline_p99_ms:.2f} | {f.p99_ratio:.2f} | {d.max_ms:.2f} "
            f"| {f.rss_growth_mib:.1f} | {d.server_cpu_s / d.seconds:.2f} "
            f"| {d.party_cpu_s / d.seconds:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=CALLS)
    parser.add_argument("--seconds", type=float, default=SECONDS, help="each run's length")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="runs with each party")
    parser.add_argument("--only", default=",".join(PARTIES), help="some of the parties")
    parser.add_argument("--play", choices=(*PARTIES, CONTROL), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        play(args.play, args.port)
        return
    parties = tuple(p for p in args.only.split(",") if p)
    with tempfile.TemporaryDirectory(prefix="mockserver-hostile-") as workdir:
        figures = measure_all(Path(workdir), parties, args.calls, args.seconds, args.rounds)
        print(table(figures))


if __name__ == "__main__":
    main()
