"""The order of a run: our server on the default seed, then on the large seed, then the
reference, one process at a time, every figure into its row as ours or the reference's.

A figure that fails (a server that does not start, a wrk error, a load run with error answers
or an exhausted supply) is reported and the run goes on; the exit status is then 1. Missed
targets are results, not failures.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import (
    accounts,
    chaos,
    figures,
    hostile,
    idempotency_soak,
    instructions,
    metrics_cost,
    peers,
    plugin_overhead,
    snapshot_restore,
    test_loop,
    verify_journal,
    webhook_backlog,
)
from .load import LoadResult, median_round
from .report import Report, Row, Target
from .seed import large_seed
from .servers import Server, ours_command, running, spawn

GROUPS = (
    "startup",
    "load",
    "instructions",
    "pages",
    "reset",
    "rss",
    "soak",
    "idempotency",
    "webhooks",
    "hostile",
    "verify",
    "snapshots",
    "accounts",
    "chaos",
    "metrics",
    "durable",
    "peers",
    "pytest",
    "loop",
)
OURS = "ours"
REF = "reference"
# Another build of ours (`--baseline-python`: an earlier commit's, say), in the same load rounds
# and under callgrind: "no worse than that build" read on this machine, in this run.
BASE = "baseline"
# pytest's assertion rewriting off: the loop's runs without its import hook (see `loop`).
PLAIN_ASSERT = ("--assert=plain",)


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass
class Options:
    seconds: float = 3.0  # each round of a load figure
    # Alternating rounds, the median of each side counting: this box's speed drifts by a
    # quarter over minutes, and the median of short rounds on both sides of each stretch is
    # what a slow or a fast stretch moves least.
    rounds: int = 5
    warmup: float = 1.0
    page_seconds: float = 3.0
    startups: int = 5
    startup_budget: float = 90.0  # seconds for the repeated start-ups of one server and seed
    big_documents: int = 100_000
    soak_seconds: float = 30.0
    idempotency_requests: int = idempotency_soak.REQUESTS
    slice_seconds: float = 10.0
    depths: tuple[int, ...] = (1, 100, 1000)
    groups: tuple[str, ...] = GROUPS
    backlog_runs: int = 3  # of the main webhook backlog figure (the median counts)
    backlog_layouts: tuple[str, ...] = webhook_backlog.LAYOUTS
    hostile_seconds: float = hostile.SECONDS  # each run of 500 calls, with or without a party
    plugin_tests: int = 300  # tests per generated pytest suite
    plugin_repeat: int = 3  # runs of each suite (the best counts)
    plugin_imports: int = 11  # fresh processes timing the plugin's import (the median counts)
    loop_rounds: int = 11  # alternating one-test pytest runs of each suite (the median counts)
    run_id: str = "0"
    # The interpreter of a venv holding only the package (installed from the sources) and
    # pytest, for the one-test loop; None: this one, on the package it imports.
    loop_python: Path | None = None
    # The interpreter of a venv with another build of mockserver installed (`make bench
    # BASELINE=REV` builds one): its server is the `baseline.*` rows; None: not measured.
    baseline_python: Path | None = None
    # Where `make peers` installed Prism, json-server and WireMock (benchmarks/peers.py).
    peers_folder: Path = field(default_factory=peers.default_folder)
    peer_warmup: float = 3.0  # seconds of each GET after a peer starts, before its rounds
    log: Callable[[str], None] = field(default=_log)


SLACK = idempotency_soak.SLACK
FLAT = idempotency_soak.FLAT_MIB
REFERENCE = [sys.executable, "-m", "benchmarks.reference_app", "--port", "{port}"]
# (key, label, whether a baseline build is measured beside it, its p99 bound in ms: None where
# there is none). The ratios to the bare Starlette app are reported, not targets: the budgets
# (docs/performance) compare the mock with its peers (the `peers` rows), and bound the p99.
LOADS = (
    ("get", "GET /v1/documents/{id}", True, 10.0),
    ("list", "GET /v1/documents?limit=20", True, 10.0),
    ("create", "POST /v1/documents, unique Idempotency-Key", True, 10.0),
    ("advance", "POST /v1/workflows/{id}/advance", False, None),
)


def _at_most(limit: float) -> Target:
    return Target("value<=", limit)


def rows(options: Options) -> list[Row]:
    """Every row of the table, in order, with its target where it has one."""
    n = f"{options.big_documents // 1000}k"
    deepest = options.depths[-1]
    table = [
        Row("startup.default", "start-up to first 200, default seed", "ms", Target("ratio<=", 2)),
        Row("startup.big", f"start-up to first 200, {n} seed", "ms", _at_most(3000)),
        Row("startup.big.cold", f"start-up to first 200, {n} seed, seed cache off", "ms"),
        Row("history.big", f"first audit read after start-up, {n} seed", "ms"),
        Row("history.big.cold", f"first audit read after start-up, {n} seed, cache off", "ms"),
    ]
    for key, label, _, p99 in LOADS:
        table += [
            Row(f"{key}.rps", label, "req/s"),
            Row(f"{key}.p50", f"{label}, p50", "ms"),
            Row(f"{key}.p99", f"{label}, p99", "ms", None if p99 is None else _at_most(p99)),
        ]
    for key, label, *_ in LOADS:
        if key in instructions.KINDS:
            table.append(Row(f"cpu.{key}", f"{label}, instructions per request", "instr"))
    if options.baseline_python is not None:
        table += baseline_rows()
    for depth in options.depths:
        table.append(Row(f"page.{depth}", f"page at cursor depth {depth}, {n} seed", "req/s"))
    ready = "reset until the next read answers"
    table += [
        Row("page.cost", f"cost of a page, depth {deepest} / depth 1", "x", _at_most(1.2)),
        Row("reset.default", f"{ready}, default seed", "ms", _at_most(5)),
        Row("reset.default.call", "POST /_mock/reset alone, default seed", "ms"),
        Row("reset.big", f"{ready}, {n} seed", "ms", _at_most(300)),
        Row("reset.big.call", f"POST /_mock/reset alone, {n} seed", "ms"),
        Row("rss.default", "RSS, default seed, every world touched", "MiB"),
        Row("rss.big", f"RSS, {n} seed, every world touched", "MiB", _at_most(400)),
        Row("soak.rps", f"POST soak of {options.soak_seconds:g} s", "req/s"),
        Row("soak.p99", "POST soak, worst slice p99", "ms", _at_most(10)),
        Row("soak.rss.start", "POST soak, RSS after the first slice", "MiB"),
        Row("soak.rss.end", "POST soak, RSS at the end", "MiB"),
        Row("soak.kib", "POST soak, RSS growth per request", "KiB"),
        Row("soak.drift", "POST soak, growth per request, 2nd half / 1st", "x", _at_most(1.2)),
    ]
    kept = f"{options.idempotency_requests:,} kept 409s, distinct keys"
    table += [
        Row("idem.record", "idempotency record of a kept 409, tracemalloc", "B"),
        Row("idem.budget", "idempotency records' budget: 10,000 of them", "MiB"),
        Row("idem.rps", kept, "req/s"),
        Row("idem.p99", f"{kept}, worst slice p99", "ms"),
        Row("idem.rss.growth", f"{kept}, RSS growth", "MiB"),
        Row("idem.rss.records", f"{kept}, RSS of the records / budget", "x", _at_most(SLACK)),
        Row("idem.rss.flat", f"{kept}, RSS growth, 2nd half", "MiB", _at_most(FLAT)),
    ]
    table += backlog_rows(options.backlog_layouts)
    table += hostile_rows()
    journal = f"{verify_journal.ENTRIES:,}-entry journal"
    table += [
        Row(
            "verify.worst",
            f"POST /_mock/requests/verify, {journal}, slowest matcher",
            "ms",
            _at_most(5),
        ),
        Row("verify.engine", f"verify of the engine alone, {journal}, slowest matcher", "ms"),
        Row("snapshot.default", "snapshot restore, default seed's sandbox", "ms", _at_most(5)),
        Row(
            "snapshot.large",
            f"snapshot restore, {options.big_documents:,}-document seed's sandbox",
            "ms",
            _at_most(300),
        ),
    ]
    table += [
        Row(
            "accounts.pair",
            "account sandbox made and removed over HTTP, in-process",
            "ms",
            _at_most(1),
        ),
        Row("accounts.pair.socket", "account sandbox made and removed over a socket", "ms"),
        Row("accounts.idle", "memory of an idle account sandbox (Python allocations)", "KiB"),
    ]
    untouched = "GET /v1/documents/{id} with chaos loaded that never matches it"
    table += [
        Row("chaos.rps", f"{untouched} (reference column: nothing loaded)", "req/s"),
        Row("chaos.p99", f"{untouched}, p99", "ms", Target("ratio<=", CHAOS_P99)),
    ]
    counted = "GET /v1/documents/{id} with metrics on (reference column: --no-metrics)"
    table += [
        Row("metrics.rps", counted, "req/s", Target("ratio>=", METRICS_RATIO)),
        Row("metrics.p99", f"{counted}, p99", "ms"),
        Row(
            "metrics.count",
            "the metrics' middleware and the journal's note around one request, in-process",
            "us",
            Target("value<=", METRICS_COUNT_US),
        ),
        Row(
            "metrics.stack",
            "GET /v1/documents/{id} through the whole app in-process, metrics on "
            "(reference column: off)",
            "us",
        ),
    ]
    durable = "POST /v1/documents with --state-dir (reference column: without)"
    table += [
        Row("durable.rps", durable, "req/s", Target("ratio>=", DURABLE_RATIO)),
        Row("durable.p99", f"{durable}, p99", "ms"),
    ]
    table += peers.rows()
    table.append(
        Row("pytest.import", "import of the pytest plugin, pytest imported", "ms", _at_most(50))
    )
    for plugin in PLUGIN_ROWS:
        label = f"pytest, per test: {plugin.label}"
        if plugin.reference is not None:
            label += f" (reference: {REFERENCE_LIBRARIES[plugin.reference]})"
        table.append(Row(plugin.key, label, "ms", plugin.target))
    loop = "one-test pytest run"
    table += [
        Row("loop.bare", f"{loop}, no fixture", "ms"),
        Row(
            "loop.mock_client",
            f"{loop}, mock_client + one GET, over no fixture",
            "ms",
            _at_most(LOOP_MOCK_CLIENT),
        ),
        Row(
            "loop.mock_server",
            f"{loop}, mock_server + one GET, over no fixture",
            "ms",
            _at_most(LOOP_MOCK_SERVER),
        ),
    ]
    return table


# The budget: the first use of a fixture in a one-test run, over a run with no fixture, at most.
LOOP_MOCK_CLIENT = 250
LOOP_MOCK_SERVER = 400

# The budget: counting costs the request path no more than a few microseconds.
METRICS_COUNT_US = 5.0
METRICS_RATIO = 0.95  # req/s with metrics on over --no-metrics, at least (wrk's noise)
DURABLE_RATIO = 0.5  # POST req/s with --state-dir over without, at least
# p99 of requests no chaos rule touches, with chaos loaded over without, at most: the same
# within the noise of short rounds on a shared machine.
CHAOS_P99 = 1.15

BACKLOG = "24 h clock advance, 1,000 failing deliveries"
LAYOUT_LABELS = {
    "endpoints16": "on 16 endpoints",
    "endpoint1": "on 1 endpoint",
    "heads1000": "on 1,000 endpoints (63 accounts)",
}
RECEIVER_LABELS = {"500": "receiver answering 500", "refused": "connection refused"}
# (layout, receiver) of each backlog figure; the first is the one with the target.
BACKLOGS = (("endpoints16", "500"), ("endpoints16", "refused"), ("endpoint1", "500"))
BACKLOG_BOUND = ("heads1000", "500")


@dataclass(frozen=True)
class PluginRow:
    """A per-test row: a suite of benchmarks/plugin_overhead.py (its time per test over a bare
    test's), beside the suite of another library when there is one to compare with."""

    key: str
    label: str
    suite: str
    reference: str | None = None
    target: Target | None = None


REFERENCE_LIBRARIES = {"respx_get": "respx", "httpserver_get": "pytest-httpserver"}
# The budget: a test's cost with `mock_client` at most respx's + 1 ms, with `mock_server` + 2 ms.
PLUGIN_ROWS = (
    PluginRow(
        "pytest.mock_client_get",
        "mock_client + one GET",
        "mock_client_get",
        "respx_get",
        Target("over<=", 1),
    ),
    PluginRow(
        "pytest.mock_server_get",
        "mock_server + one GET",
        "mock_server_get",
        "respx_get",
        Target("over<=", 2),
    ),
    PluginRow(
        "pytest.mock_server_get.socket",
        "mock_server + one GET",
        "mock_server_get",
        "httpserver_get",
    ),
    PluginRow(
        "pytest.mock_account_get",
        "mock_account + one GET",
        "mock_account_get",
        "respx_get",
    ),
    PluginRow("pytest.mock_client", "mock_client, no request", "mock_client"),
    PluginRow("pytest.mock_server", "mock_server, no request", "mock_server"),
)


HOSTILE_LABELS = {
    "hang": "a webhook receiver that hangs",
    "drip": "a receiver dripping its answer a byte a second",
    "gigabyte": "a receiver answering 200 with a 1 GiB body",
    "redirect": "a receiver that redirects",
    "reset": "a receiver that resets the connection",
    "slow_clients": f"{hostile.SLOW_CLIENTS} clients sending a head a byte a second",
    "idle_connections": f"{hostile.IDLE_CONNECTIONS} idle connections",
}


def baseline_command(python: Path) -> list[str]:
    """Ours as `ours_command` starts it, by the baseline's interpreter, with `-P`: the server
    starts in this checkout, whose mockserver/ would otherwise come before the baseline's."""
    return [str(python), "-P", *ours_command(None)[1:]]


def baseline_rows() -> list[Row]:
    """The baseline build's figures, each beside the reference's of the same rounds: its ratio
    reads against the ratio of the row of ours with the same figure."""
    table = []
    for key, label, compared, *_ in LOADS:
        if compared:
            table.append(Row(f"baseline.{key}.rps", f"{label}, the baseline build", "req/s"))
    for key, label, *_ in LOADS:
        if key in instructions.KINDS:
            label = f"{label}, instructions per request, the baseline build"
            table.append(Row(f"baseline.cpu.{key}", label, "instr"))
    return table


def hostile_rows() -> list[Row]:
    """Per hostile party (see benchmarks/hostile.py): the API's p99 beside its baseline's (the
    reference column), and the server's RSS growth."""
    table = []
    for party in hostile.PARTIES:
        label = f"API p99 over {hostile.CALLS} calls, {HOSTILE_LABELS[party]}"
        target = Target("ratio<=", hostile.P99_RATIO)
        table.append(Row(f"hostile.{party}.p99", label, "ms", target))
        label = f"server RSS growth over them, {HOSTILE_LABELS[party]}"
        table.append(Row(f"hostile.{party}.rss", label, "MiB", _at_most(hostile.RSS_BOUND_MIB)))
    return table


def backlog_rows(layouts: tuple[str, ...]) -> list[Row]:
    """A time and an attempt count per backlog figure (see benchmarks/webhook_backlog.py)."""
    table = []
    for layout, receiver in (*BACKLOGS, BACKLOG_BOUND):
        if layout not in layouts:
            continue
        key = f"webhooks.{layout}.{receiver}"
        label = f"{BACKLOG} {LAYOUT_LABELS[layout]}, {RECEIVER_LABELS[receiver]}"
        target = _at_most(1000) if (layout, receiver) == BACKLOGS[0] else None
        table.append(Row(key, label, "ms", target))
        table.append(Row(f"{key}.attempts", f"{label}: attempts made", "attempts"))
    return table


def fixed_ids(server: Server, count: int) -> list[str]:
    """The reference's supply: one made-up id, as many times as the largest supply (made-up
    ids cost nothing, and a supply sized from its create rate ran out on a busy box, where the
    reference advanced faster than 1.5 times the rate it created at)."""
    return ["wf_reference"] * max(count, figures.SUPPLY_CAP)


def growth_per_request(slices: list[figures.SoakSlice]) -> float:
    """KiB of RSS per request from the end of the first slice to the end of the last."""
    requests = sum(s.requests for s in slices[1:])
    return 1024 * (slices[-1].rss_mib - slices[0].rss_mib) / max(1, requests)


class Run:
    """One benchmark run, filling a report."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.report = Report(rows=rows(options))
        self.workdir = Path(tempfile.mkdtemp(prefix="mockserver-bench-"))

    def put(self, key: str, side: str, value: float | None, note: str = "") -> None:
        row = self.report.row(key)
        setattr(row, side, value)
        if note:
            row.note = f"{row.note}; {side}: {note}" if row.note else f"{side}: {note}"
        shown = "-" if value is None else f"{value:,.2f}"
        self.options.log(f"  {side:9} {row.label}: {shown} {row.unit} {note}".rstrip())

    def attempt(self, what: str, measure: Callable[[], object]) -> None:
        """Run one measurement; a failure is recorded and the run goes on."""
        try:
            measure()
        except Exception as error:
            self.report.failures.append(f"{what}: {error}")
            self.options.log(f"  FAILED {what}: {error}")

    def wants(self, group: str) -> bool:
        return group in self.options.groups

    # -- sessions --------------------------------------------------------------------------------

    def start(
        self, side: str, command: list[str], env: dict[str, str] | None = None
    ) -> Callable[[], Server]:
        return lambda: spawn(side, command, figures.PROBE, self.workdir, env)

    def put_startups(self, key: str, results: dict[str, tuple[list[float], Server]]) -> None:
        if not self.wants("startup"):
            return
        for side, (seconds, _) in results.items():
            times = self.options.startups
            note = "" if len(seconds) == times else f"median of {len(seconds)} (time budget)"
            self.put(key, side, 1000 * statistics.median(seconds), note)

    def ours_big(self, seed: Path) -> None:
        """Our server on the large seed: start-up, RSS, deep pages, reset."""
        if self.wants("startup"):  # once without the seed cache: what a first start pays
            cold = {OURS: self.start(OURS, ours_command(seed), {"MOCKSERVER_SEED_CACHE": "0"})}
            ((seconds, server),) = figures.startups(cold, 1, self.options.startup_budget).values()
            with running(server):
                self.put("startup.big.cold", OURS, 1000 * seconds[0])
                self.attempt(
                    "ours first audit read, cache off",
                    lambda: self.put("history.big.cold", OURS, figures.first_audit_read(server)),
                )
            # The seeded history cached, as the first warm start caches the seed: the timed
            # first audit read below then reads it back, whatever an earlier run left.
            with running(self.start(OURS, ours_command(seed))()) as primed:
                figures.first_audit_read(primed)
        times = self.options.startups if self.wants("startup") else 1
        starts = {OURS: self.start(OURS, ours_command(seed))}
        results = figures.startups(starts, times, self.options.startup_budget)
        self.put_startups("startup.big", results)
        with running(results[OURS][1]) as server:
            if self.wants("startup"):
                self.attempt(
                    "ours first audit read",
                    lambda: self.put("history.big", OURS, figures.first_audit_read(server)),
                )
            self.rss(OURS, server, "big")
            self.pages(OURS, server)
            self.resets(OURS, server, "big", times=5)

    def paired(self) -> None:
        """Ours on the default seed and the reference, both running, measured alternately."""
        times = self.options.startups if self.wants("startup") else 1
        starts = {
            OURS: self.start(OURS, ours_command(None)),
            REF: self.start(REF, REFERENCE),
        }
        results = figures.startups(starts, times, self.options.startup_budget)
        self.put_startups("startup.default", results)
        servers = {side: server for side, (_, server) in results.items()}
        with (
            running(servers[OURS]),
            running(servers[REF]),
            self.baseline_server() as base,
        ):
            if self.wants("startup"):  # the reference loads no seed: one start-up for both
                self.put("startup.big", REF, self.report.row("startup.default").reference)
            self.loads(servers if base is None else {**servers, BASE: base})
            self.pages(REF, servers[REF])
            self.resets(OURS, servers[OURS], "default", times=30)
            for seed in ("default", "big"):
                self.resets(REF, servers[REF], seed, times=30)
                self.rss(REF, servers[REF], seed)
            self.rss(OURS, servers[OURS], "default")
            for side, server in servers.items():
                self.soak(side, server)
            self.backlogs(servers[OURS])

    # -- figures ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def baseline_server(self) -> Iterator[Server | None]:
        """The baseline build's server (`baseline_python`), for the load figures; None when
        there is none or no load figure is wanted."""
        python = self.options.baseline_python
        if python is None or not self.wants("load"):
            yield None
            return
        server = self.start(BASE, baseline_command(python))()
        with running(server):
            yield server

    def loads(self, servers: dict[str, Server]) -> None:
        """Each load figure in alternating rounds (ours then the reference, then the other way
        round, ...); the median round of each side counts, so neither a neighbour's burst nor a
        fast stretch of the box decides a ratio."""
        if not self.wants("load"):
            return
        o = self.options
        create_rps: dict[str, float] = {}

        def measure(key: str, server: Server, side: str) -> LoadResult:
            if key == "get":
                return figures.static(server, figures.DOCUMENT, o.seconds, o.warmup)
            if key == "list":
                return figures.static(server, figures.PAGE, o.seconds, o.warmup)
            if key == "create":
                return figures.create(server, o.seconds, o.warmup, f"{o.run_id}")
            expected = create_rps.get(side, 4000.0)
            if side == REF:  # it answers any id alike: no need to make workflows first
                return figures.advance(server, o.seconds, expected, self.workdir, fixed_ids)
            return figures.advance(server, o.seconds, expected, self.workdir)

        for key, _, compared, _ in LOADS:
            # The baseline only where it is compared with ours.
            order = [(s, v) for s, v in servers.items() if s != BASE or compared]
            rounds: dict[str, list[LoadResult]] = {}
            for number in range(o.rounds):
                for side, server in order if number % 2 == 0 else order[::-1]:
                    try:
                        result = measure(key, server, side)
                    except Exception as error:
                        self.report.failures.append(f"{side} {key}: {error}")
                        self.options.log(f"  FAILED {side} {key}: {error}")
                        continue
                    rounds.setdefault(side, []).append(result)
            for side, results in rounds.items():
                chosen = median_round(results)
                if side == BASE:
                    self.put(f"{BASE}.{key}.rps", OURS, chosen.rps)
                    continue
                self.put_load(key, side, chosen)
                if key == "create":
                    create_rps[side] = chosen.rps
                if side == REF and BASE in servers and compared:
                    self.put(f"{BASE}.{key}.rps", REF, chosen.rps)

    def put_load(self, key: str, side: str, result: LoadResult) -> None:
        note = ""
        if not result.valid:
            note = f"INVALID: {result.errors} error answers"
            note += ", supply exhausted" if result.exhausted else ""
            self.report.failures.append(f"{side} {key}: {note}")
        self.put(f"{key}.rps", side, result.rps, note)
        self.put(f"{key}.p50", side, result.p50_ms)
        self.put(f"{key}.p99", side, result.p99_ms)

    def resets(self, side: str, server: Server, seed: str, times: int) -> None:
        if not self.wants("reset"):
            return

        def measure() -> None:
            cost = figures.reset_cost(server, times, budget=30.0)
            note = "" if cost.samples == times else f"median of {cost.samples} (time budget)"
            self.put(f"reset.{seed}", side, cost.ready_ms, note)
            self.put(f"reset.{seed}.call", side, cost.call_ms)

        self.attempt(f"{side} reset ({seed})", measure)

    def rss(self, side: str, server: Server, seed: str) -> None:
        if not self.wants("rss"):
            return

        def measure() -> None:
            if side == OURS:
                figures.touch_every_world(server)
            self.put(f"rss.{seed}", side, server.rss_kib() / 1024)

        self.attempt(f"{side} rss ({seed})", measure)

    def pages(self, side: str, server: Server) -> None:
        """Pages at each depth, in alternating rounds (depth 1, 100, 1000, 1, ...): the median
        round of each depth counts, as for the loads."""
        if not self.wants("pages"):
            return

        def measure() -> None:
            depths = self.options.depths
            paths = figures.page_paths(server, depths)
            rounds: dict[int, list[LoadResult]] = {}
            for _round in range(self.options.rounds):
                for depth, path in paths.items():
                    result = figures.static(server, path, self.options.page_seconds, warmup=1.0)
                    rounds.setdefault(depth, []).append(result)
            best = {depth: median_round(results) for depth, results in rounds.items()}
            for depth, result in best.items():
                self.put(f"page.{depth}", side, result.rps, "" if result.valid else "INVALID")
            self.put("page.cost", side, best[depths[0]].rps / best[depths[-1]].rps)

        self.attempt(f"{side} pages", measure)

    def soak(self, side: str, server: Server) -> None:
        if not self.wants("soak"):
            return
        o = self.options

        def measure() -> None:
            slices = figures.soak(server, o.soak_seconds, o.slice_seconds, o.run_id)
            self.report.details.setdefault("soak", {})[side] = [vars(s) for s in slices]
            requests = sum(s.requests for s in slices)
            self.put("soak.rps", side, requests / (o.slice_seconds * len(slices)))
            self.put("soak.p99", side, max(s.p99_ms for s in slices))
            self.put("soak.rss.start", side, slices[0].rss_mib)
            self.put("soak.rss.end", side, slices[-1].rss_mib)
            if len(slices) >= 3:
                self.put("soak.kib", side, growth_per_request(slices))
                middle = len(slices) // 2  # the slices after the first, in two halves
                first = growth_per_request(slices[: middle + 1])
                self.put("soak.drift", side, growth_per_request(slices[middle:]) / max(first, 1e-9))
            if any(s.errors for s in slices):
                self.report.failures.append(f"{side} soak: error answers")

        self.attempt(f"{side} soak", measure)

    def idempotency(self) -> None:
        """The idempotency soak on a server of its own with the default cap, then on one with
        a cap of 1: the difference of their growth is the records' (ours only: the reference
        keeps nothing)."""
        if not self.wants("idempotency"):
            return
        o = self.options

        def soak(cap: int) -> idempotency_soak.Soak:
            command = [*ours_command(None), "--idempotency-records", str(cap)]
            with running(self.start(OURS, command)()) as server:
                return idempotency_soak.soak(server, o.idempotency_requests, run_id=o.run_id)

        def measure() -> None:
            record = idempotency_soak.kept_bytes()
            budget = record * idempotency_soak.CAP / 2**20
            capped, control = soak(idempotency_soak.CAP), soak(1)
            self.report.details["idempotency"] = {
                "capped": vars(capped) | {"samples": [vars(s) for s in capped.samples]},
                "cap of 1": vars(control) | {"samples": [vars(s) for s in control.samples]},
            }
            self.put("idem.record", OURS, record)
            self.put("idem.budget", OURS, budget)
            self.put("idem.rps", OURS, capped.rps)
            self.put("idem.p99", OURS, max(s.p99_ms for s in capped.samples))
            note = f"from {capped.baseline_mib:.1f}; {control.growth_mib:.1f} with a cap of 1"
            self.put("idem.rss.growth", OURS, capped.growth_mib, note)
            records = capped.growth_mib - control.growth_mib
            self.put("idem.rss.records", OURS, records / budget, f"{records:.1f} MiB")
            self.put("idem.rss.flat", OURS, capped.second_half_mib)
            if capped.errors or control.errors:
                errors = capped.errors + control.errors
                self.report.failures.append(f"idempotency soak: {errors} error answers")

        self.attempt("ours idempotency soak", measure)

    def backlogs(self, server: Server) -> None:
        """The webhook backlog figures (ours only: the reference has no webhooks)."""
        if not self.wants("webhooks"):
            return
        o = self.options

        def measure() -> None:
            for layout, receiver in (*BACKLOGS, BACKLOG_BOUND):
                if layout not in o.backlog_layouts:
                    continue
                main = (layout, receiver) == BACKLOGS[0]
                runs = [
                    webhook_backlog.measure(server, layout, receiver)
                    for _ in range(o.backlog_runs if main else 1)
                ]
                self.report.details.setdefault("webhooks", []).extend(vars(r) for r in runs)
                chosen = sorted(runs, key=lambda r: r.advance_ms)[len(runs) // 2]
                key = f"webhooks.{layout}.{receiver}"
                note = f"median of {len(runs)}" if len(runs) > 1 else ""
                if (layout, receiver) == BACKLOG_BOUND:
                    note = "every delivery a queue's head: the bound of real HTTP, no target"
                self.put(key, OURS, chosen.advance_ms, note)
                self.put(f"{key}.attempts", OURS, chosen.attempts)

        self.attempt("ours webhook backlog", measure)

    def hostile(self) -> None:
        """Each hostile party on a fresh server of ours, its baseline runs beside it (the
        reference column holds the baseline's p99: a run with no party, or with a receiver
        that answers 200 at once for the one whose 200 makes deliveries flow)."""
        if not self.wants("hostile"):
            return

        def measure(party: str) -> None:
            with running(hostile.fresh_server(self.workdir, f"hostile-{party}")) as server:
                figure = hostile.measure(server, party, seconds=self.options.hostile_seconds)
            self.report.details.setdefault("hostile", []).append(
                {
                    "party": party,
                    "baseline": figure.baseline,
                    "runs": [vars(run) for run in figure.runs],
                    "bases": [vars(run) for run in figure.bases],
                }
            )
            note = (
                f"baseline: {'no party' if figure.baseline == hostile.NONE else 'a 200 receiver'}"
            )
            self.put(f"hostile.{party}.p99", OURS, figure.during.p99_ms, note)
            self.put(f"hostile.{party}.p99", REF, figure.baseline_p99_ms)
            self.put(f"hostile.{party}.rss", OURS, figure.rss_growth_mib)

        for party in hostile.PARTIES:
            self.attempt(f"ours with {party}", functools.partial(measure, party))

    def instructions(self) -> None:
        """Instructions per request of each kind, ours then the reference (then the baseline
        build, when there is one), each on a fresh server under callgrind
        (benchmarks/instructions.py); skipped without valgrind."""
        if not instructions.available():
            self.report.failures.append("instructions: valgrind is not installed")
            return
        sides = {OURS: ours_command(None), REF: REFERENCE}
        python = self.options.baseline_python
        if python is not None:
            sides[BASE] = baseline_command(python)

        def measure(kind: str, side: str) -> None:
            tag = f"i{self.options.run_id}-{side}"
            figure = instructions.per_request(
                side, sides[side], figures.PROBE, self.workdir, kind, tag
            )
            if side == BASE:
                self.put(f"baseline.cpu.{kind}", OURS, figure)
                return
            self.put(f"cpu.{kind}", side, figure)
            if side == REF and python is not None:
                self.put(f"baseline.cpu.{kind}", REF, figure)

        for kind in instructions.KINDS:
            for side in sides:
                self.attempt(
                    f"{side} {kind} under callgrind", functools.partial(measure, kind, side)
                )

    def verify(self) -> None:
        """`POST /_mock/requests/verify` over a full journal, in-process: each matcher of
        benchmarks/verify_journal.py, the slowest one's median counting (no server: the
        journal is filled through the API in this process)."""
        rows = verify_journal.measure(verify_journal.ENTRIES, verify_journal.REPEAT)
        name, _, http, _, _ = max(rows, key=lambda row: row[2])
        self.put("verify.worst", OURS, http, f"matcher: {name}")
        self.put("verify.engine", OURS, max(row[1] for row in rows))

    def snapshots(self) -> None:
        """`POST /_mock/snapshots/{name}/restore` in-process, of the default seed's sandbox
        and of the large seed's (benchmarks/snapshot_restore.py)."""
        o = self.options
        for key, seed, writes in (
            ("snapshot.default", None, 40),
            ("snapshot.large", large_seed(o.big_documents), 1_000),
        ):
            result = snapshot_restore.measure(seed, writes, snapshot_restore.REPEAT)
            note = (
                f"engine {result.engine_ms:.1f} ms; save {result.save_ms:.0f} ms; "
                f"file {result.size / 1e6:.2f} MB"
            )
            self.put(key, OURS, result.http_ms, note)

    def accounts(self) -> None:
        """Making and removing an account sandbox over HTTP, and an idle one's memory
        (benchmarks/accounts.py)."""
        costs = accounts.measure()
        self.put("accounts.pair", OURS, costs.inprocess_ms, f"{accounts.PAIRS} pairs, median")
        self.put("accounts.pair.socket", OURS, costs.socket_ms, "keep-alive client")
        note = f"{accounts.IDLE} accounts, one request each"
        self.put("accounts.idle", OURS, costs.idle_kib, note)

    def chaos(self) -> None:
        """Requests no chaos rule touches, on a server with chaos loaded and on the same server
        with nothing loaded (benchmarks/chaos.py), in alternating rounds."""
        o = self.options

        def measure() -> None:
            with running(self.start("chaos", ours_command(None))()) as server:
                rounds: dict[str, list[LoadResult]] = {OURS: [], REF: []}
                for number in range(o.rounds):
                    order = [(OURS, True), (REF, False)]
                    for side, with_chaos in order if number % 2 == 0 else order[::-1]:
                        result = chaos.loaded(server, with_chaos, o.seconds, o.warmup)
                        rounds[side].append(result)
            for side, results in rounds.items():
                chosen = median_round(results)
                note = "" if chosen.valid else f"INVALID: {chosen.errors} error answers"
                self.put("chaos.rps", side, chosen.rps, note)
                self.put("chaos.p99", side, chosen.p99_ms)
                if not chosen.valid:
                    self.report.failures.append(f"{side} chaos: {note}")

        self.attempt("chaos loaded, and not", measure)

    def metrics(self) -> None:
        """GET throughput with metrics on beside the same server with --no-metrics, in
        alternating rounds, and the counting's own cost in-process (benchmarks/metrics_cost.py)."""
        o = self.options
        sides = {
            OURS: self.start("metrics-on", ours_command(None)),
            REF: self.start("metrics-off", [*ours_command(None), "--no-metrics"]),
        }

        def measure() -> None:
            with running(sides[OURS]()) as on, running(sides[REF]()) as off:
                cost = metrics_cost.measure(on, off, o.seconds, o.warmup, o.rounds)
            for side, chosen in ((OURS, cost.on), (REF, cost.off)):
                note = "" if chosen.valid else f"INVALID: {chosen.errors} error answers"
                self.put("metrics.rps", side, chosen.rps, note)
                self.put("metrics.p99", side, chosen.p99_ms)
                if not chosen.valid:
                    self.report.failures.append(f"{side} metrics: {note}")
            self.put("metrics.count", OURS, cost.count_us, "medians of 100,000 with and without")
            stack_on, stack_off = cost.stack_us
            self.put("metrics.stack", OURS, stack_on, "median of 20,000, in turns")
            self.put("metrics.stack", REF, stack_off)

        self.attempt("ours with metrics, and without", measure)

    def durable(self) -> None:
        """POST throughput of a server with --state-dir (every answer waits for its group
        fsync) beside the same server without it, in the reference column: alternating rounds,
        the median round of each counting."""
        o = self.options
        state = self.workdir / "state"
        durable_command = [*ours_command(None), "--state-dir", str(state)]
        sides = {
            OURS: self.start("durable", durable_command),
            REF: self.start("in-memory", ours_command(None)),
        }

        def measure() -> None:
            with running(sides[OURS]()) as durable, running(sides[REF]()) as plain:
                servers = {OURS: durable, REF: plain}
                rounds: dict[str, list[LoadResult]] = {OURS: [], REF: []}
                for number in range(o.rounds):
                    order = list(servers.items())
                    for side, server in order if number % 2 == 0 else order[::-1]:
                        tag = f"{o.run_id}d{number}"
                        rounds[side].append(figures.create(server, o.seconds, o.warmup, tag))
            for side, results in rounds.items():
                chosen = median_round(results)
                note = "" if chosen.valid else f"INVALID: {chosen.errors} error answers"
                self.put("durable.rps", side, chosen.rps, note)
                self.put("durable.p99", side, chosen.p99_ms)
                if not chosen.valid:
                    self.report.failures.append(f"{side} durable: {note}")
            size = sum(p.stat().st_size for p in state.iterdir())
            self.report.row("durable.rps").note = f"state directory: {size / 2**20:.1f} MiB"

        self.attempt("ours with --state-dir", measure)

    def beside_peers(self) -> None:
        """Ours on the default seed beside Prism, json-server and WireMock, each serving the
        same three calls (benchmarks/peers.py), in alternating rounds; a peer that is not
        installed is skipped with a note, and the run goes on."""
        o = self.options
        timing = peers.Timing(o.seconds, o.rounds, o.warmup, o.peer_warmup)
        with running(self.start(OURS, ours_command(None))()) as ours:
            measured = peers.measure(ours, o.peers_folder, self.workdir, timing, o.run_id, o.log)
        self.report.failures += measured.failures
        for peer, reason in measured.skipped.items():
            for row in self.report.rows:
                if row.key.startswith("peers.") and row.key.endswith(f".{peer}"):
                    row.note = f"skipped: {reason}"
        for kind, chosen in measured.rounds.items():
            if OURS not in chosen:
                continue
            ours_round = chosen[OURS]
            self.put(f"peers.{kind}.p99", OURS, ours_round.p99_ms, peers.invalid(ours_round))
            for peer, result in chosen.items():
                if peer != OURS:
                    self.put(f"peers.{kind}.{peer}", OURS, ours_round.rps)
                    note = peers.invalid(result) or f"p99 {result.p99_ms:.2f} ms"
                    self.put(f"peers.{kind}.{peer}", REF, result.rps, note)
        for peer, (mine, theirs) in measured.rss_mib.items():
            self.put(f"peers.rss.{peer}", OURS, mine)
            restarted = "started again for each POST round"
            self.put(f"peers.rss.{peer}", REF, theirs, restarted if peer in peers.RESTARTED else "")

    def plugin(self) -> None:
        """What the pytest plugin costs a suite: its import, and the fixtures' time per test
        beside respx and pytest-httpserver (no server of ours: the plugin makes its own, in the
        pytest process)."""
        if not self.wants("pytest"):
            return
        o = self.options

        def imports() -> None:
            self.put("pytest.import", OURS, plugin_overhead.import_ms(samples=o.plugin_imports))

        def measure() -> None:
            costs = plugin_overhead.measure(o.plugin_tests, o.plugin_repeat)
            self.report.details["pytest"] = {name: vars(cost) for name, cost in costs.items()}
            for plugin in PLUGIN_ROWS:
                ours = costs[plugin.suite]
                note = f"CPU {ours.cpu_ms:.2f} ms; session set-up {ours.setup_ms:.0f} ms, once"
                self.put(plugin.key, OURS, ours.wall_ms, note)
                if plugin.reference is not None:
                    theirs = costs[plugin.reference]
                    self.put(plugin.key, REF, theirs.wall_ms, f"CPU {theirs.cpu_ms:.2f} ms")
            bare = next(iter(costs.values())).base_ms
            self.report.row(PLUGIN_ROWS[0].key).note += f"; a bare test takes {bare:.2f} ms"

        self.attempt("pytest plugin import", imports)
        self.attempt("pytest fixtures", measure)

    def loop(self) -> None:
        """What a one-test pytest run costs with each fixture over one with none, each run a
        fresh process (benchmarks/test_loop.py): on `loop_python`, whose venv holds only the
        package as `pip install` from source gives it and pytest; without it, on this
        interpreter and the package it imports. In the same
        rounds, the runs with `--assert=plain`: the notes say what is left without pytest's
        assertion rewriting, which loads every module of a plugin's distribution."""
        o = self.options
        variants = ((), PLAIN_ASSERT)
        if o.loop_python is not None:
            loop, plain = test_loop.measure(
                o.loop_rounds, python=str(o.loop_python), variants=variants
            )
        else:
            loop, plain = test_loop.measure(o.loop_rounds, variants=variants)
        runs, plain_runs = loop.by_suite(), plain.by_suite()
        self.report.details["loop"] = {name: vars(run) for name, run in runs.items()}
        self.report.details["loop_assert_plain"] = {
            name: vars(run) for name, run in plain_runs.items()
        }
        note = f"CPU {loop.bare.cpu_ms:.0f} ms; {plain.bare.wall_ms:.0f} ms with --assert=plain"
        if o.loop_python is not None:
            note += "; a venv of the package and pytest only"
        self.put("loop.bare", OURS, loop.bare.wall_ms, note)
        for name in ("mock_client", "mock_server"):
            run = runs[name]
            without = plain_runs[name].wall_ms - plain.bare.wall_ms
            note = (
                f"{run.wall_ms:.0f} ms in all; CPU {run.cpu_ms - loop.bare.cpu_ms:+.0f} ms; "
                f"{without:+.0f} ms with --assert=plain"
            )
            self.put(f"loop.{name}", OURS, run.wall_ms - loop.bare.wall_ms, note)

    def execute(self) -> Report:
        o = self.options
        if any(self.wants(g) for g in ("startup", "pages", "reset", "rss")):
            o.log(f"seed: {o.big_documents} documents (generated once, then cached)")
            seed = large_seed(o.big_documents)
            o.log(f"ours, {o.big_documents}-document seed")
            self.attempt("ours, large seed", lambda: self.ours_big(seed))
        if self.wants("idempotency"):
            o.log("ours, the idempotency soak")
            self.idempotency()
        separate = (
            "pytest",
            "hostile",
            "instructions",
            "idempotency",
            "verify",
            "snapshots",
            "accounts",
            "chaos",
            "metrics",
            "durable",
            "peers",
            "loop",
        )
        if any(self.wants(g) for g in GROUPS if g not in separate):
            o.log("ours, default seed, and the reference, alternately")
            self.attempt("ours and the reference", self.paired)
        if self.wants("instructions"):
            o.log("instructions per request under callgrind, ours and the reference")
            self.instructions()
        if self.wants("hostile"):
            o.log("ours, hostile webhook receivers and clients")
            self.hostile()
        if self.wants("verify"):
            o.log("request verification over a full journal, in-process")
            self.attempt("verify", self.verify)
        if self.wants("snapshots"):
            o.log("snapshot restores, in-process")
            self.attempt("snapshots", self.snapshots)
        if self.wants("accounts"):
            o.log("account sandboxes, in-process and over a socket")
            self.attempt("accounts", self.accounts)
        if self.wants("chaos"):
            o.log("ours with a chaos scenario loaded, and without it")
            self.chaos()
        if self.wants("metrics"):
            o.log("ours with metrics on, and with --no-metrics")
            self.metrics()
        if self.wants("durable"):
            o.log("ours with --state-dir, and without it")
            self.durable()
        if self.wants("peers"):
            o.log("ours beside Prism, json-server and WireMock, alternately")
            self.attempt("ours and its peers", self.beside_peers)
        if self.wants("pytest"):
            o.log("pytest fixtures")
            self.plugin()
        if self.wants("loop"):
            o.log("one-test pytest runs, each in a fresh process")
            self.attempt("one-test pytest runs", self.loop)
        if self.report.failures:
            o.log(f"server logs kept in {self.workdir}")
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)
        return self.report
