"""The memory soak: a server doing the work that leaves cyclic garbage, and its RSS over time.

    python -m benchmarks.memory_soak --minutes 30            # `make bench-memory`
    python -m benchmarks.memory_soak --minutes 5 --collectors shipped,freeze-survivors

A server is started as a long-lived team sandbox runs, `mockserver run --tls --state-dir DIR`
(frozen clock, no rate limit), and driven over HTTPS in rounds. Each round, on a new TLS
connection: a reset; two shipped scenarios loaded (`flaky_documents`, `webhook_failures`);
webhook endpoints on receivers that fail (a reset connection, a refused port, a redirect), that
are slow (one that never answers, one that drips its answer: these get only the few workflow
events of a round) and that answer 200; `documents` creates with idempotency keys (each one a
delivery per endpoint), replays, errors, a workflow approved to completion, two clock moves of
61 s (the failed attempts' retries come due and run), a snapshot saved, restored and deleted,
the scenarios disarmed. Then a reset, and the server's RSS is read. A reset drops everything
the round made, so RSS after it must stay flat once the server is warm: a round leaves nothing
behind that the collector cannot reclaim. A reset and a restore drop the webhook journal and
its deliveries, which hold reference cycles, and loading a scenario builds classes (cycles
too): that is the garbage a collector setting must not strand.

`--collectors` runs the same soak on servers whose collector is set differently, side by
side (each its own server and driver thread, the receivers shared):

- `shipped`: `mockserver run` as it is;
- `defaults`: the interpreter's own settings (no tuning at all);
- `freeze-survivors`: `shipped` plus a freeze of what every collection leaves alive, the
  setting `mockserver run` had before it was measured here.

Each collector other than `shipped` is applied by this module started as the server
(`--serve COLLECTOR -- run ...`), before `mockserver.cli.main` runs. Every loop is bounded (by
rounds and by `--minutes`), every request has a timeout, and the servers are stopped by the
PIDs started here.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import http.client
import json
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .servers import (
    HOST,
    KEY,
    STOP_TIMEOUT,
    free_port,
    repo_root,
    rss_kib,
    server_environment,
    stop,
)

COLLECTORS = ("shipped", "defaults", "freeze-survivors")
SCENARIOS = ("flaky_documents", "webhook_failures")
# Receivers by kind (tests/support/hostile.py), how many endpoints point at each, and a
# refused port; with the scenario's own endpoint, 15 of the 16 an account may have.
FAILING = {"reset": 3, "redirect": 2}
REFUSED = 3
SLOW = {"hang": 2, "drip": 2}
SUCCEEDING = {"ok": 2}
SLOW_EVENTS = ["workflow.created", "workflow.advanced", "workflow.completed", "document.signed"]
DOCUMENTS = 150  # creates per round: with the 10 endpoints on every event, 1,500 deliveries
# Each document carries 4 KB of metadata, and so does each delivery of its event: what a round
# leaves behind, if anything, is then plain in the RSS.
METADATA = {f"note{index}": "soak " * 100 for index in range(8)}
ADVANCE = 61  # seconds per clock move: past the first retry (60 s) of a failed attempt
START_TIMEOUT = 120.0
REQUEST_TIMEOUT = 60.0  # a clock move awaits the attempts it runs (10 s at most each)
# Rounds before the RSS the rest is compared with: RSS climbs by about 10 MiB over the first
# rounds (allocator arenas, what is built on first use, garbage waiting for the collector's
# first full collections), then levels off.
WARM_ROUNDS = 8
DRIP_INTERVAL = 1.0  # seconds between two bytes of the dripping receiver's answer


# -- the server ---------------------------------------------------------------------------


def serve(collector: str, argv: list[str]) -> int:
    """Run `mockserver` with `argv` in this process, its collector set as `collector` says."""
    if collector not in COLLECTORS:
        raise SystemExit(f"unknown collector {collector!r}; one of {', '.join(COLLECTORS)}")
    from mockserver.cli.main import main
    from mockserver.serving import gc_tuning

    if collector == "defaults":
        gc_tuning.tune_for_serving = _untuned
        gc_tuning.PacedCollection = _unpaced  # type: ignore[assignment, misc]
    elif collector == "freeze-survivors":
        gc.callbacks.append(_freeze_survivors)
    return main(argv)


def _untuned() -> None:
    """`tune_for_serving` of the `defaults` collector: nothing."""


def _unpaced(app: Any) -> Any:
    return app


def _freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop":
        gc.freeze()


@dataclass
class Served:
    """A soak server we started: its process, port and the CA that its clients trust."""

    collector: str
    process: subprocess.Popen[bytes]
    port: int
    context: ssl.SSLContext
    log: Path

    def rss_mib(self) -> float:
        return rss_kib(self.process.pid) / 1024

    def client(self) -> Https:
        return Https(self.port, self.context)

    def stop(self) -> None:
        stop(self.process)


def start(collector: str, workdir: Path, extra_env: Mapping[str, str] | None = None) -> Served:
    """A soak server with `collector`, HTTPS only and durable, in `workdir`; returns once it
    answers over TLS."""
    port = free_port()
    tls_dir, state_dir = workdir / f"tls-{collector}", workdir / f"state-{collector}"
    argv = [sys.executable, "-m", "benchmarks.memory_soak", "--serve", collector, "--"]
    argv += ["run", "--host", HOST, "--port", str(port), "--clock", "frozen", "--no-rate-limit"]
    argv += ["--tls-dir", str(tls_dir), "--state-dir", str(state_dir)]
    log = workdir / f"server-{collector}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=repo_root(),
            env=server_environment(extra_env),
        )
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the {collector} server exited: {log.read_text()[-2000:]}")
            ca = tls_dir / "ca.pem"
            if ca.exists():
                served = Served(collector, process, port, _context(ca), log)
                with contextlib.suppress(OSError, ssl.SSLError, http.client.HTTPException):
                    client = served.client()
                    try:
                        if client.call("GET", "/v1/whoami")[0] == 200:
                            return served
                    finally:
                        client.close()
            time.sleep(0.1)
        raise RuntimeError(f"the {collector} server did not answer in time")
    except BaseException:
        process.kill()
        process.wait(STOP_TIMEOUT)
        raise


def _context(ca: Path) -> ssl.SSLContext:
    # The server writes the CA before it listens; a half-written file is retried by the caller.
    return ssl.create_default_context(cafile=str(ca))


class Https:
    """One keep-alive HTTPS connection to a soak server, with the soak's key."""

    def __init__(self, port: int, context: ssl.SSLContext) -> None:
        self.conn = http.client.HTTPSConnection(
            HOST, port, context=context, timeout=REQUEST_TIMEOUT
        )

    def call(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> tuple[int, bytes]:
        sent = {"Authorization": f"Bearer {KEY}", **(headers or {})}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        self.conn.request(method, path, body=payload, headers=sent)
        response = self.conn.getresponse()
        return response.status, response.read()

    def expect(
        self,
        method: str,
        path: str,
        body: Any = None,
        status: int | tuple[int, ...] = 200,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """The parsed body of a call that must answer `status` (one of them, for a tuple)."""
        got, raw = self.call(method, path, body, headers)
        if got not in (status if isinstance(status, tuple) else (status,)):
            raise RuntimeError(f"{method} {path}: {got} {raw[:300]!r}")
        return json.loads(raw) if raw[:1] in (b"{", b"[") else raw

    def close(self) -> None:
        self.conn.close()


# -- the receivers ------------------------------------------------------------------------


Endpoint = tuple[str, list[str]]  # a receiver's URL, and the event types sent to it


@contextlib.contextmanager
def receivers(drip_interval: float = DRIP_INTERVAL, hang: bool = True) -> Iterator[list[Endpoint]]:
    """The webhook receivers of a round, running; yields the endpoints to register. The slow
    ones get the few workflow events of a round, so a clock move waits for a handful of their
    attempts, not for a queue of hundreds; with `hang` false there is no receiver that never
    answers (a clock move then never waits for a timeout)."""
    sys.path.insert(0, str(repo_root()))
    from tests.support.hostile import HostileReceiver

    everything = ["*"]
    kinds = {kind: (count, everything) for kind, count in {**FAILING, **SUCCEEDING}.items()}
    kinds.update((k, (n, SLOW_EVENTS)) for k, n in SLOW.items() if hang or k != "hang")
    with contextlib.ExitStack() as stack:
        endpoints: list[Endpoint] = []
        for kind, (count, events) in kinds.items():
            receiver = stack.enter_context(HostileReceiver(kind, interval=drip_interval))
            endpoints += [(receiver.url, events)] * count
        refused = stack.enter_context(socket.socket())
        refused.bind((HOST, 0))  # bound, never listening: every connection is refused
        endpoints += [(f"http://{HOST}:{refused.getsockname()[1]}/hooks", everything)] * REFUSED
        yield endpoints


# -- a round ------------------------------------------------------------------------------


def one_round(
    server: Served, endpoints: list[Endpoint], number: int, documents: int = DOCUMENTS
) -> None:
    """One round of work on a new TLS connection, ending with a reset (see the module)."""
    client = server.client()
    try:
        client.expect("POST", "/_mock/reset")
        for name in SCENARIOS:
            client.expect("POST", "/_mock/scenarios", {"name": name}, 201)
        for url, events in endpoints:
            client.expect("POST", "/v1/webhook_endpoints", {"url": url, "events": events}, 201)
        created = []
        for index in range(documents):
            key = {"Idempotency-Key": f"soak-{number}-{index}"}
            body = {"title": f"Soak {index}", "vault_id": "vault_mock_us", "metadata": METADATA}
            # flaky_documents answers the second create to reach it with a 500
            answer = client.expect("POST", "/v1/documents", body, (201, 500), key)
            if isinstance(answer, dict) and "id" in answer:
                created.append(answer["id"])
            if index % 10 == 0:  # a replay of the same key, and a few refusals
                client.expect("POST", "/v1/documents", body, (201, 500), key)
                client.expect("GET", "/v1/documents/doc_nope", status=404)
                client.expect("POST", "/v1/documents", {"title": "no vault"}, status=(422, 500))
                explode = {"title": "Explode", "vault_id": "vault_mock_us"}
                client.expect("POST", "/v1/documents", explode, 422)  # the scenario's rule
        client.expect("GET", "/v1/documents?limit=20")
        steps = [{"assignee": "a@mock.example"}, {"assignee": "b@mock.example"}]
        workflow = client.expect(
            "POST", "/v1/workflows", {"document_id": created[0], "steps": steps}, 201
        )
        for _ in steps:
            path = f"/v1/workflows/{workflow['id']}/advance"
            client.expect("POST", path, {"decision": "approve"})
        for _ in range(2):
            client.expect("POST", "/_mock/clock/advance", {"seconds": ADVANCE})
        name = f"soak-{number}"
        client.expect("POST", "/_mock/snapshots", {"name": name}, 201)
        client.expect("POST", f"/_mock/snapshots/{name}/restore")
        client.expect("DELETE", f"/_mock/snapshots/{name}", status=(200, 204))
        client.expect("DELETE", "/_mock/scenarios", status=(200, 204))
        client.expect("POST", "/_mock/reset")
    finally:
        client.close()


# -- the soak -----------------------------------------------------------------------------


@dataclass
class Sample:
    """The server's RSS after a round's closing reset."""

    round: int
    at_s: float
    rss_mib: float


@dataclass
class Soak:
    """One collector's soak."""

    collector: str
    samples: list[Sample] = field(default_factory=list)
    error: str | None = None

    @property
    def warm_mib(self) -> float:
        """RSS once warm: the median of the three samples after `WARM_ROUNDS` rounds (or of the
        last three, in a shorter soak), against the noise of a single sample."""
        start = min(WARM_ROUNDS, max(0, len(self.samples) - 3))
        return statistics.median(s.rss_mib for s in self.samples[start : start + 3])

    @property
    def growth_mib(self) -> float:
        """From warm to the end (the median of the last three samples)."""
        return statistics.median(s.rss_mib for s in self.samples[-3:]) - self.warm_mib

    @property
    def per_round_kib(self) -> float:
        """The least-squares slope of RSS per round over the second half of the rounds."""
        half = self.samples[len(self.samples) // 2 :]
        if len(half) < 2:
            return 0.0
        xs, ys = [s.round for s in half], [s.rss_mib for s in half]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        den = sum((x - mx) ** 2 for x in xs)
        return 1024 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den

    def summary(self) -> dict[str, Any]:
        rss = [s.rss_mib for s in self.samples]
        return {
            "rounds": len(self.samples),
            "minutes": round(self.samples[-1].at_s / 60, 1) if self.samples else 0,
            "first_mib": round(rss[0], 1) if rss else None,
            "warm_mib": round(self.warm_mib, 1) if rss else None,
            "end_mib": round(rss[-1], 1) if rss else None,
            "max_mib": round(max(rss), 1) if rss else None,
            "growth_mib": round(self.growth_mib, 1) if rss else None,
            "second_half_kib_per_round": round(self.per_round_kib, 1),
            "error": self.error,
        }


def soak(
    server: Served,
    endpoints: list[Endpoint],
    *,
    rounds: int,
    seconds: float,
    documents: int = DOCUMENTS,
    on_sample: Callable[[Soak, Sample], None] | None = None,
) -> Soak:
    """Up to `rounds` rounds, while `seconds` last; RSS after each."""
    result = Soak(server.collector)
    began = time.monotonic()
    for number in range(rounds):
        if number and time.monotonic() - began > seconds:
            break
        one_round(server, endpoints, number, documents)
        sample = Sample(number + 1, time.monotonic() - began, server.rss_mib())
        result.samples.append(sample)
        if on_sample is not None:
            on_sample(result, sample)
    return result


def run(collectors: tuple[str, ...], minutes: float, rounds: int, out: Path | None) -> list[Soak]:
    """The soak of each collector side by side, for `minutes` (or `rounds`) each."""
    results: dict[str, Soak] = {}
    lock = threading.Lock()

    def report(result: Soak, sample: Sample) -> None:
        print(
            f"{result.collector:18s} round {sample.round:3d}  {sample.at_s:7.0f} s  "
            f"RSS {sample.rss_mib:7.1f} MiB",
            flush=True,
        )
        with lock:
            results[result.collector] = result
            if out is not None:
                write(out, list(results.values()), minutes)

    with tempfile.TemporaryDirectory(prefix="mockserver-memory-soak-") as folder:
        workdir = Path(folder)
        with receivers() as endpoints:
            servers = [start(collector, workdir) for collector in collectors]
            try:

                def drive(server: Served) -> None:
                    try:
                        seconds = minutes * 60
                        soak(server, endpoints, rounds=rounds, seconds=seconds, on_sample=report)
                    except Exception as error:  # recorded, and the other soaks go on
                        with lock:
                            failed = results.setdefault(server.collector, Soak(server.collector))
                            failed.error = f"{type(error).__name__}: {error}"

                threads = [threading.Thread(target=drive, args=(s,)) for s in servers]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
            finally:
                for server in servers:
                    server.stop()
    soaks = [results.get(c, Soak(c, error="no round completed")) for c in collectors]
    if out is not None:
        write(out, soaks, minutes)
    return soaks


def write(out: Path, soaks: list[Soak], minutes: float) -> None:
    document = {
        "command": " ".join(["python -m benchmarks.memory_soak", *sys.argv[1:]]),
        "minutes": minutes,
        "summary": {s.collector: s.summary() for s in soaks},
        "samples": {s.collector: [vars(x) for x in s.samples] for s in soaks},
    }
    out.write_text(json.dumps(document, indent=1) + "\n")


def table(soaks: list[Soak]) -> str:
    lines = [
        "| collector | rounds | minutes | RSS first | warm | end | max | growth "
        "| KiB/round, 2nd half |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in soaks:
        m = s.summary()
        lines.append(
            f"| {s.collector} | {m['rounds']} | {m['minutes']} | {m['first_mib']} "
            f"| {m['warm_mib']} | {m['end_mib']} | {m['max_mib']} | {m['growth_mib']} "
            f"| {m['second_half_kib_per_round']} |" + (f" ERROR: {s.error}" if s.error else "")
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--serve"]:
        collector, rest = args[1], args[2:]
        return serve(collector, rest[1:] if rest[:1] == ["--"] else rest)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memory_soak", description=__doc__)
    parser.add_argument("--minutes", type=float, default=30.0, help="how long each soak runs")
    parser.add_argument("--rounds", type=int, default=10_000, help="at most this many rounds")
    parser.add_argument("--collectors", default="shipped", help=f"some of {','.join(COLLECTORS)}")
    parser.add_argument("--out", type=Path, help="where the JSON goes (rewritten each round)")
    options = parser.parse_args(args)
    collectors = tuple(c for c in options.collectors.split(",") if c)
    unknown = set(collectors) - set(COLLECTORS)
    if unknown:
        parser.error(f"unknown collector(s): {', '.join(sorted(unknown))}")
    soaks = run(collectors, options.minutes, options.rounds, options.out)
    print(table(soaks))
    return 1 if any(s.error for s in soaks) else 0


if __name__ == "__main__":
    sys.exit(main())
