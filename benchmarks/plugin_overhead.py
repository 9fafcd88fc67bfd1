"""What the pytest plugin costs a consumer's suite: its import, and the time it adds per test.

Import: every pytest session of an environment with mockserver installed imports the plugin
(pytest11), used or not. Each of several fresh processes imports pytest, then times the import
of `mockserver.testing.plugin` with bytecode cached; the median counts.

Per test: generated suites of N tests, each test doing one `GET /v1/documents/{id}` answered by
a mock, each suite run by pytest in a fresh process: `mock_client` (in-process), `mock_server`
(over a socket), respx (httpx mocked in-process) and pytest-httpserver (over a socket), beside a
bare suite whose tests do nothing, and our two fixtures alone, with no request. The socket
suites and respx share one session-scoped keep-alive httpx client, as a consumer's suite would.
A conftest hook times every test's whole protocol (setup, call, teardown, report), in wall-clock
time and in the CPU time of the process (server threads included). The first test, which sets
up the session's app and server, and the last, which tears them down, are left out: a suite's
per-test cost is the median of its tests minus the bare suite's median; its session set-up is
its first test's wall-clock time minus its median (the median of the runs). A benchmark, not a
test: nothing asserts a time.

    python benchmarks/plugin_overhead.py [--tests 300] [--repeat 3] [--imports 11]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# The document every mock answers with (respx and pytest-httpserver are told to return this).
PRELUDE = """\
DOCUMENT = {
    "id": "doc_mock_draft", "object": "document",
    "title": "Master Services Agreement - Acme Corp", "vault_id": "vault_mock_us",
    "metadata": {"kind": "msa", "amount": 120000, "counterparty": "Acme Corp"},
    "status": "draft", "version": 1, "created_at": "2025-06-02T10:00:00Z", "region": "us",
    "signers": [], "signed_at": None, "legal_hold": False,
    "sha256": "5dd57de7244d3bb03c09817abf456bae60e3d5f01fe350e0de581ccc0f6e9d1a",
}
PATH = "/v1/documents/doc_mock_draft"
EXTERNAL = "https://api.example.com" + PATH


"""
SUITES = {
    "bare": "def test_{i}():\n    pass\n",
    "mock_client_get": (
        "def test_{i}(mock_client):\n    assert mock_client.get(PATH).status_code == 200\n"
    ),
    "mock_server_get": (
        "def test_{i}(mock_server, http):\n"
        "    assert http.get(mock_server.url + PATH).status_code == 200\n"
    ),
    "mock_account_get": (
        "def test_{i}(mock_account, http):\n"
        "    auth = {{'Authorization': 'Bearer ' + mock_account.api_key}}\n"
        "    assert http.get(mock_account.base_url + '/whoami', headers=auth).status_code == 200\n"
    ),
    "respx_get": (
        "def test_{i}(respx_mock, http):\n"
        "    respx_mock.get(EXTERNAL).respond(200, json=DOCUMENT)\n"
        "    assert http.get(EXTERNAL).status_code == 200\n"
    ),
    "httpserver_get": (
        "def test_{i}(httpserver, http):\n"
        "    httpserver.expect_request(PATH).respond_with_json(DOCUMENT)\n"
        "    assert http.get(httpserver.url_for(PATH)).status_code == 200\n"
    ),
    "mock_client": "def test_{i}(mock_client):\n    pass\n",
    "mock_server": "def test_{i}(mock_server):\n    pass\n",
}
BARE = "bare"
# One keep-alive client for the whole session, as a consumer's suite would hold; and the timer.
CONFTEST = """
import json
import os
import time

import httpx
import pytest

_TIMES = []


@pytest.fixture(scope="session")
def http():
    with httpx.Client(headers={"Authorization": "Bearer sk_test_mock_full"}) as client:
        yield client


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    wall, cpu = time.perf_counter(), time.process_time()
    yield
    _TIMES.append((time.perf_counter() - wall, time.process_time() - cpu))


def pytest_sessionfinish(session):
    with open(os.environ["PLUGIN_BENCH_TIMES"], "w") as out:
        json.dump(_TIMES, out)
"""


@dataclass(frozen=True)
class SuiteTimes:
    """Milliseconds per test of one suite (median of the tests between the first and last),
    and of its first test, in wall-clock and process CPU time."""

    wall_ms: float
    cpu_ms: float
    first_wall_ms: float
    first_cpu_ms: float


def environment(extra: dict[str, str]) -> dict[str, str]:
    """Ours, with pytest-httpserver on IPv4 loopback (its default is `localhost`)."""
    return {**os.environ, "PYTEST_HTTPSERVER_HOST": "127.0.0.1", **extra}


def run_suite(folder: Path, name: str, tests: int) -> SuiteTimes:
    """Run one generated suite of `tests` tests in a fresh pytest process."""
    path = folder / f"test_{name}.py"
    path.write_text(PRELUDE + "".join(SUITES[name].format(i=i) for i in range(tests)))
    times_file = folder / f"{name}.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=environment({"PLUGIN_BENCH_TIMES": str(times_file)}),
    )
    if result.returncode != 0 or not times_file.exists():
        raise RuntimeError(f"{name} suite failed:\n{result.stdout[-2000:]}\n{result.stderr}")
    times = json.loads(times_file.read_text())
    if len(times) != tests:
        raise RuntimeError(f"{name} suite timed {len(times)} tests of {tests}")
    middle = times[1:-1]
    return SuiteTimes(
        wall_ms=1000 * statistics.median(t[0] for t in middle),
        cpu_ms=1000 * statistics.median(t[1] for t in middle),
        first_wall_ms=1000 * times[0][0],
        first_cpu_ms=1000 * times[0][1],
    )


@dataclass(frozen=True)
class Overhead:
    """What a suite's mock adds to a test, in ms (wall-clock and CPU), and its session
    start-up; `base_ms` is the bare suite's own median test (wall-clock)."""

    wall_ms: float
    cpu_ms: float
    setup_ms: float  # wall-clock, once per session: the first test's extra time
    base_ms: float


def measure(
    tests: int = 300, repeat: int = 3, suites: tuple[str, ...] = tuple(SUITES)
) -> dict[str, Overhead]:
    """Each suite `repeat` times (the best run of each counts: a neighbour's burst of CPU only
    ever adds); the overhead of every suite over the bare one."""
    names = (BARE, *(name for name in suites if name != BARE))
    best: dict[str, SuiteTimes] = {}
    setups: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="mockserver-plugin-bench-") as tmp:
        folder = Path(tmp)
        (folder / "conftest.py").write_text(CONFTEST)
        for _ in range(repeat):
            for name in names:  # alternating, so a burst of load lands on every suite alike
                times = run_suite(folder, name, tests)
                setups[name].append(times.first_wall_ms - times.wall_ms)
                if name not in best or times.cpu_ms < best[name].cpu_ms:
                    best[name] = times
    base = best[BARE]
    return {
        name: Overhead(
            wall_ms=times.wall_ms - base.wall_ms,
            cpu_ms=times.cpu_ms - base.cpu_ms,
            setup_ms=statistics.median(setups[name]),
            base_ms=base.wall_ms,
        )
        for name, times in best.items()
        if name != BARE
    }


# The time of one import after pytest's, in a fresh interpreter, printed in seconds.
IMPORT_PROGRAM = """
import time
import pytest
start = time.perf_counter()
import {module}
print(time.perf_counter() - start)
"""
PLUGIN = "mockserver.testing.plugin"


def import_ms(module: str = PLUGIN, samples: int = 11) -> float:
    """Median wall-clock ms of importing `module` in `samples` fresh processes that have
    imported pytest, after one unmeasured import that leaves its bytecode cached."""

    def once() -> float:
        done = subprocess.run(
            [sys.executable, "-c", IMPORT_PROGRAM.format(module=module)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            env=environment({}),
        )
        return 1000 * float(done.stdout)

    once()
    return statistics.median(once() for _ in range(samples))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--imports", type=int, default=11, help="fresh processes per median")
    args = parser.parse_args()
    print(f"import of {PLUGIN} after pytest: {import_ms(samples=args.imports):.1f} ms")
    overheads = measure(args.tests, args.repeat)
    base = next(iter(overheads.values())).base_ms
    print(f"{args.tests} tests per suite, best of {args.repeat} runs; over a bare test")
    print(f"(the bare suite's median test: {base:.2f} ms)")
    print("| suite | per-test ms (wall) | per-test ms (CPU) | session set-up ms (first test) |")
    print("|---|---|---|---|")
    for name, cost in overheads.items():
        print(f"| {name} | {cost.wall_ms:.2f} | {cost.cpu_ms:.2f} | {cost.setup_ms:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
