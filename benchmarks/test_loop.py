"""What a developer waits for in a test-driven loop: one test, run by pytest in a new process.

Three one-test suites are generated in a temporary folder: a test that uses no fixture, a test
that uses `mock_client` and makes one `GET /v1/documents/doc_mock_draft`, and a test that uses
`mock_server` and makes the same GET over its socket (through `mock_server.client()`, as the
guides show). Each is run as `python -m pytest -q -p no:cacheprovider FILE` in a fresh process,
bytecode cached (each suite runs once unmeasured first, and the environment drops
`PYTHONDONTWRITEBYTECODE`), by the interpreter `python` (this one unless given), the suites
alternating over `rounds` rounds so that a burst of load
lands on every suite alike. The wall-clock time of each whole process counts, from spawning it
to its exit; the median of each suite's rounds is reported, and what each fixture's suite costs
over the suite with no fixture. The process's CPU time (user and system, all its threads) is
reported beside it: on a shared machine it moves less than wall-clock time, but it leaves out
waits (a server thread's shutdown). With `--sources`, the mockserver of that checkout runs
(first on `PYTHONPATH`): the pure-Python package that `pip install` from source gives. Given
more than once, every checkout runs in the same alternating rounds (to compare two versions);
a value may list several folders (`A:B`), all put first on `PYTHONPATH`. With `--also=ARGS`,
every suite also runs with those pytest arguments added, in the same rounds:
`--also=--assert=plain` shows what pytest's assertion rewriting costs the fixtures' runs
(pytest loads every module of a plugin's distribution, so every module of mockserver, through
its rewriting import hook, which reads cached code several times slower than Python's own
import does). With `--python`, the suites run on that interpreter: `make bench` gives the one
of `.venv-loop`, a venv holding only the package installed from the sources and pytest, as
`pip install` gives a user (other pytest plugins would import httpx or anyio in the run with
no fixture, so the fixtures' runs would not pay for them). A benchmark, not a test: nothing
asserts a time.

    python -m benchmarks.test_loop [--rounds 11] [--python PATH] [--sources PATH ...]
        [--also=ARGS ...]
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
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
        '        assert api.get("/v1/documents/doc_mock_draft").status_code == 200\n'
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


def run_once(
    folder: Path,
    name: str,
    sources: str | None = None,
    python: str = sys.executable,
    args: Sequence[str] = (),
) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one fresh pytest process of `python` running the suite
    `name`, with the folders of `sources` (separated by os.pathsep) first on its PYTHONPATH
    and `args` added to pytest's command line."""
    extra = {}
    if sources is not None:
        folders = [str(Path(part).resolve()) for part in sources.split(os.pathsep)]
        extra["PYTHONPATH"] = os.pathsep.join(folders)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, f"test_{name}.py"]
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
        raise RuntimeError(
            f"{name} suite exited with {result.returncode}:\n{result.stdout[-2000:]}\n"
            f"{result.stderr[-2000:]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def compare(
    rounds: int,
    trees: Sequence[str | None],
    python: str = sys.executable,
    variants: Sequence[Sequence[str]] = ((),),
) -> list[Loop]:
    """The suites on each of `trees` (`sources` of `run_once`; None: the package installed
    for `python`), each with each of `variants` (pytest arguments added): each suite once to
    warm (bytecode), then `rounds` rounds alternating suites, trees and variants; the medians
    of the runs of each tree with each variant (trees first: tree 0's variants, then tree
    1's), in ms."""
    python = os.path.abspath(python)  # the suites run elsewhere; a venv's link stays a link
    sides = [(tree, variant) for tree in range(len(trees)) for variant in range(len(variants))]
    runs = [(side, name) for side in sides for name in SUITES]
    times: dict[tuple[tuple[int, int], str], list[tuple[float, float]]] = {run: [] for run in runs}
    with tempfile.TemporaryDirectory(prefix="mockserver-loop-bench-") as tmp:
        folder = Path(tmp)

        def run(side: tuple[int, int], name: str) -> tuple[float, float]:
            tree, variant = side
            return run_once(folder, name, trees[tree], python, variants[variant])

        for name, body in SUITES.items():
            (folder / f"test_{name}.py").write_text(body)
        for side, name in runs:
            run(side, name)
        for number in range(rounds):
            for side, name in runs if number % 2 == 0 else runs[::-1]:
                times[side, name].append(run(side, name))
    loops = []
    for side in sides:
        medians = {
            name: Run(
                1000 * statistics.median(wall for wall, _ in times[side, name]),
                1000 * statistics.median(cpu for _, cpu in times[side, name]),
            )
            for name in SUITES
        }
        loops.append(Loop(medians[BARE], medians["mock_client"], medians["mock_server"]))
    return loops


def measure(
    rounds: int = 11,
    sources: Path | None = None,
    python: str = sys.executable,
    variants: Sequence[Sequence[str]] = ((),),
) -> list[Loop]:
    """The suites on the checkout `sources` (None: the package installed for `python`), with
    each of `variants`, as `compare`: one Loop per variant."""
    return compare(rounds, [None if sources is None else str(sources)], python, variants)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter whose pytest runs the suites"
    )
    parser.add_argument(
        "--sources",
        action="append",
        help="a checkout whose mockserver/ runs (first on PYTHONPATH); again to compare",
    )
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="ARGS",
        help="pytest arguments every suite also runs with, e.g. --also=--assert=plain; again "
        "for more",
    )
    args = parser.parse_args()
    trees: list[str | None] = args.sources or [None]
    variants = [[], *(shlex.split(extra) for extra in args.also)]
    loops = compare(args.rounds, trees, args.python, variants)
    print(f"one-test pytest runs, medians of {args.rounds} fresh processes each, in ms")
    sides = [(tree, variant) for tree in trees for variant in variants]
    for (tree, variant), loop in zip(sides, loops, strict=True):
        where = tree or "the package installed for " + args.python
        print(f"\n{where}" + (f", with {shlex.join(variant)}" if variant else "") + "\n")
        print("| suite | wall-clock | over no fixture | CPU | over no fixture |")
        print("|---|---|---|---|---|")
        for name, run in loop.by_suite().items():
            wall, cpu = run.wall_ms - loop.bare.wall_ms, run.cpu_ms - loop.bare.cpu_ms
            print(
                f"| {LABELS[name]} | {run.wall_ms:.0f} | {wall:+.0f} | {run.cpu_ms:.0f} "
                f"| {cpu:+.0f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
