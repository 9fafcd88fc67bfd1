"""wrk runs: one thread, 16 connections, a fixed duration, a Lua script, a parsed result.

Each script in lua/ is joined with lua/report.lua, whose done() prints one JSON line, so
nothing depends on wrk's human-readable output. Every run is bounded: wrk stops itself after
its duration, and the subprocess is killed if it overstays by half a minute.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

LUA = Path(__file__).resolve().parent / "lua"
THREADS = 1
CONNECTIONS = 16
GRACE = 30.0  # seconds past its duration before a wrk process is killed


@dataclass(frozen=True)
class LoadResult:
    """What one wrk run measured. Latencies in milliseconds."""

    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    errors: int  # socket errors, timeouts and answers > 399
    exhausted: bool  # a supply-driven script ran out before the end
    status_errors: int = 0  # the answers > 399 among `errors`
    unexpected: int = 0  # answers a script that expects one status says were another

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def valid(self) -> bool:
        return self.errors == 0 and not self.exhausted and self.requests > 0


def median_round(results: list[LoadResult]) -> LoadResult:
    """The round of median throughput (the lower of the two middle ones for an even count);
    an invalid round makes the figure invalid, and is what is reported."""
    invalid = [r for r in results if not r.valid]
    if invalid:
        return invalid[0]
    ranked = sorted(results, key=lambda r: r.rps)
    return ranked[(len(ranked) - 1) // 2]


def parse(output: str) -> LoadResult:
    """The result from wrk's stdout (the WRK_JSON line of report.lua)."""
    for line in output.splitlines():
        if line.startswith("WRK_JSON "):
            raw = orjson.loads(line[len("WRK_JSON ") :])
            errors = sum(
                raw[name]
                for name in (
                    "connect_errors",
                    "read_errors",
                    "write_errors",
                    "status_errors",
                    "timeouts",
                )
            )
            return LoadResult(
                requests=raw["requests"],
                seconds=raw["duration_us"] / 1e6,
                p50_ms=raw["p50_us"] / 1000,
                p90_ms=raw["p90_us"] / 1000,
                p99_ms=raw["p99_us"] / 1000,
                max_ms=raw["max_us"] / 1000,
                errors=errors,
                exhausted=bool(raw["exhausted"]),
                status_errors=raw["status_errors"],
                unexpected=raw.get("unexpected", 0),
            )
    raise RuntimeError(f"wrk printed no result:\n{output[-2000:]}")


def wrk_path() -> str:
    path = shutil.which("wrk")
    if path is None:
        raise RuntimeError("wrk is not installed: `make bench` installs it (apt-get install wrk)")
    return path


def run(url: str, script: str, args: Sequence[str], seconds: float) -> LoadResult:
    """Load `url` with lua/`script` for `seconds`; `args` go to the script's init()."""
    source = (LUA / script).read_text() + "\n" + (LUA / "report.lua").read_text()
    with tempfile.NamedTemporaryFile("w", suffix=".lua", prefix="bench-") as combined:
        combined.write(source)
        combined.flush()
        argv = [
            wrk_path(),
            f"-t{THREADS}",
            f"-c{CONNECTIONS}",
            f"-d{max(1, round(seconds))}s",
            "--timeout",
            "5s",
            "-s",
            combined.name,
            url,
            "--",
            *args,
        ]
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=seconds + GRACE, check=False
        )
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr[-2000:]}")
    return parse(done.stdout)
