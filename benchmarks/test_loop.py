"""What a developer waits for in a test-driven loop: one test, run by pytest in a new process.

Three one-test suites are generated in a temporary folder: a test that uses no fixture, a test
that uses `mock_client` and makes one `GET /v1/documents/doc_mock_draft`, and a test that uses
`mock_server` and makes the same GET over its socket (through `mock_server.client()`, as the
guides show). Each is run as `python -m pytest -q -p no:cacheprovider FILE` in a fresh process,
bytecode cached (each suite runs once unmeasured first, and the environment drops
`PYTHONDONTWRITEBYTECODE`), the suites alternating over `rounds` rounds so that a burst of load
lands on every suite alike. The wall-clock time of each whole process counts, from spawning it
to its exit; the median of each suite's rounds is reported, and what each fixture's suite costs
over the suite with no fixture. The process's CPU time (user and system, all its threads) is
reported beside it: on a shared machine it moves less than wall-clock time, but it leaves out
waits (a server thread's shutdown). With `sources`, the mockserver of that checkout runs (first on
`PYTHONPATH`): the pure-Python package that `pip install` from source gives. A benchmark, not a
test: nothing asserts a time.

    python -m benchmarks.test_loop [--rounds 11] [--sources PATH]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .servers import server_environment

SUITES = {
    "bare": "def test_nothing():\n    pass\n",
    "mock_client": (
        "def test_get(mock_client):\n"
        '    assert mock_client.get("/v1/documents/doc_mock_draft").status_code == 200\n'
    ),
    "mock_server": (
        "def test_get(mock_server):\n"
        "    with mock_server.client() as api:\n"
        '        assert api.get("/documents/doc_mock_draft").status_code == 200\n'
    ),
}
BARE = "bare"
LABELS = {
    "bare": "no fixture",
    "mock_client": "mock_client + one GET",
    "mock_server": "mock_server + one GET",
}


@dataclass(frozen=True)
class Run:
    """Median ms of one suite's runs: wall-clock, and the process's CPU time."""

    wall_ms: float
    cpu_ms: float


@dataclass(frozen=True)
class Loop:
    """The medians of each suite's runs."""

    bare: Run
    mock_client: Run
    mock_server: Run

    def by_suite(self) -> dict[str, Run]:
        """The runs by the name of their suite (the keys of SUITES)."""
        return {"bare": self.bare, "mock_client": self.mock_client, "mock_server": self.mock_server}


def run_once(folder: Path, name: str, sources: Path | None = None) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one fresh pytest process running the suite `name`."""
    extra = {} if sources is None else {"PYTHONPATH": str(sources.resolve())}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"test_{name}.py"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=server_environment(extra),
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"{name} suite failed:\n{result.stdout[-2000:]}\n{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def measure(rounds: int = 11, sources: Path | None = None) -> Loop:
    """Each suite once to warm (bytecode), then `rounds` alternating rounds; the median of
    each suite's runs, in ms."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in SUITES}
    with tempfile.TemporaryDirectory(prefix="mockserver-loop-bench-") as tmp:
        folder = Path(tmp)
        for name, body in SUITES.items():
            (folder / f"test_{name}.py").write_text(body)
            run_once(folder, name, sources)
        for number in range(rounds):
            order = list(SUITES) if number % 2 == 0 else list(SUITES)[::-1]
            for name in order:
                times[name].append(run_once(folder, name, sources))
    medians = {
        name: Run(
            1000 * statistics.median(wall for wall, _ in runs),
            1000 * statistics.median(cpu for _, cpu in runs),
        )
        for name, runs in times.items()
    }
    return Loop(medians[BARE], medians["mock_client"], medians["mock_server"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument(
        "--sources", type=Path, help="a checkout whose mockserver/ runs (first on PYTHONPATH)"
    )
    args = parser.parse_args()
    loop = measure(args.rounds, args.sources)
    print(f"one-test pytest runs, medians of {args.rounds} fresh processes each, in ms")
    print("| suite | wall-clock | over no fixture | CPU | over no fixture |")
    print("|---|---|---|---|---|")
    for name, run in loop.by_suite().items():
        wall, cpu = run.wall_ms - loop.bare.wall_ms, run.cpu_ms - loop.bare.cpu_ms
        print(
            f"| {LABELS[name]} | {run.wall_ms:.0f} | {wall:+.0f} | {run.cpu_ms:.0f} | {cpu:+.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
