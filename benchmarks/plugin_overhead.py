"""Per-test overhead of the pytest plugin's fixtures, and their one-time start-up.

Writes consumer suites of N tests each and runs each with pytest in a fresh process: no fixture
(the baseline), `mock_client` alone, `mock_server` alone, and each of them with one
`GET /v1/documents/{id}` (which also rebuilds the world the reset dropped). A conftest hook
times every test's whole protocol (setup, call, teardown, report), in wall-clock time and in
the CPU time of the process (the live server's thread included). The first test, which sets
up the session's app and server, and the last, which tears them down, are left out of the
per-test figure: the per-test overhead of a fixture is the median of its suite's tests minus
the baseline's median; its session set-up is its first test's wall-clock time minus its median
(the median of the runs). A benchmark, not a test: nothing asserts a time.

    python benchmarks/plugin_overhead.py [--tests 300] [--repeat 3]
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

SUITES = {
    "baseline": "def test_{i}():\n    pass\n",
    "mock_client": "def test_{i}(mock_client):\n    pass\n",
    "mock_server": "def test_{i}(mock_server):\n    pass\n",
    "mock_client_get": (
        "def test_{i}(mock_client):\n"
        '    assert mock_client.get("/v1/documents/doc_mock_draft").status_code == 200\n'
    ),
    "mock_server_get": (
        "def test_{i}(mock_server, http):\n"
        '    url = mock_server.base_url + "/documents/doc_mock_draft"\n'
        "    assert http.get(url).status_code == 200\n"
    ),
}
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


def run_suite(folder: Path, name: str, tests: int) -> SuiteTimes:
    """Run one generated suite of `tests` tests in a fresh pytest process."""
    path = folder / f"test_{name}.py"
    path.write_text("".join(SUITES[name].format(i=i) for i in range(tests)))
    times_file = folder / f"{name}.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "PLUGIN_BENCH_TIMES": str(times_file)},
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
    """What a fixture adds to a test, in ms (wall-clock and CPU), and its session start-up."""

    wall_ms: float
    cpu_ms: float
    setup_ms: float  # wall-clock, once per session: the first test's extra time


def measure(tests: int = 300, repeat: int = 3) -> dict[str, Overhead]:
    """Each suite `repeat` times (the best run of each counts: a neighbour's burst of CPU only
    ever adds); the overhead of every fixture suite over the baseline."""
    best: dict[str, SuiteTimes] = {}
    setups: dict[str, list[float]] = {name: [] for name in SUITES}
    with tempfile.TemporaryDirectory(prefix="mockserver-plugin-bench-") as tmp:
        folder = Path(tmp)
        (folder / "conftest.py").write_text(CONFTEST)
        for _ in range(repeat):
            for name in SUITES:  # alternating, so a burst of load lands on every suite alike
                times = run_suite(folder, name, tests)
                setups[name].append(times.first_wall_ms - times.wall_ms)
                if name not in best or times.cpu_ms < best[name].cpu_ms:
                    best[name] = times
    base = best["baseline"]
    return {
        name: Overhead(
            wall_ms=times.wall_ms - base.wall_ms,
            cpu_ms=times.cpu_ms - base.cpu_ms,
            setup_ms=statistics.median(setups[name]),
        )
        for name, times in best.items()
        if name != "baseline"
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    overheads = measure(args.tests, args.repeat)
    print(f"{args.tests} tests per suite, best of {args.repeat} runs; over a test with no fixture")
    print("| suite | per-test ms (wall) | per-test ms (CPU) | session set-up ms (first test) |")
    print("|---|---|---|---|")
    for name, cost in overheads.items():
        print(f"| {name} | {cost.wall_ms:.2f} | {cost.cpu_ms:.2f} | {cost.setup_ms:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
