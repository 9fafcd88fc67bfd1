"""Per-test overhead of the pytest plugin's fixtures: reset plus one request.

Writes three consumer suites of N tests each (no fixture; `mock_client`; `mock_server`), each
test making one request (the no-fixture baseline makes none), runs each with pytest in a fresh
process, and reports (suite time - baseline time) / N from pytest's own durations. A
benchmark, not a test: nothing asserts a time.

    python benchmarks/plugin_overhead.py [--tests 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SUITES = {
    "baseline": "def test_{i}():\n    assert True\n",
    "mock_client": (
        "def test_{i}(mock_client):\n"
        '    assert mock_client.get("/v1/documents/doc_mock_draft").status_code == 200\n'
    ),
    "mock_server": (
        "def test_{i}(mock_server, http):\n"
        '    url = mock_server.base_url + "/documents/doc_mock_draft"\n'
        "    assert http.get(url).status_code == 200\n"
    ),
}
# One keep-alive client for the whole session, as a consumer's suite would hold.
CONFTEST = """
import httpx
import pytest


@pytest.fixture(scope="session")
def http():
    with httpx.Client(headers={"Authorization": "Bearer sk_test_mock_full"}) as client:
        yield client
"""
_DURATION = re.compile(r"(\d+) passed in ([0-9.]+)s")


def run_suite(folder: Path, name: str, tests: int) -> float:
    """Seconds pytest reports for the tests of one suite (collection and start-up excluded
    where pytest excludes them; the session fixtures' start-up is included)."""
    path = folder / f"test_{name}.py"
    path.write_text("".join(SUITES[name].format(i=i) for i in range(tests)))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    match = _DURATION.search(result.stdout)
    if result.returncode != 0 or match is None or int(match.group(1)) != tests:
        raise RuntimeError(f"{name} suite failed:\n{result.stdout[-2000:]}\n{result.stderr}")
    return float(match.group(2))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mockserver-plugin-bench-") as tmp:
        folder = Path(tmp)
        (folder / "conftest.py").write_text(CONFTEST)
        medians = {
            name: statistics.median(run_suite(folder, name, args.tests) for _ in range(args.repeat))
            for name in SUITES
        }
    base = medians["baseline"]
    print(f"{args.tests} tests per suite, median of {args.repeat} runs")
    print("| fixture | suite s | per-test overhead ms (reset + one request) |")
    print("|---|---|---|")
    for name, seconds in medians.items():
        extra = "" if name == "baseline" else f"{(seconds - base) / args.tests * 1000:.2f}"
        print(f"| {name} | {seconds:.2f} | {extra} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
