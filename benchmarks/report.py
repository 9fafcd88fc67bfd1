"""Rows of a run: ours, the reference's, their ratio, its target and a verdict.

A run is written as JSON (`benchmarks/latest.json` by default) and printed as a text table;
`python -m benchmarks.report FILE` prints the Markdown table the README carries, so the README
is always a copy of a real run.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from .servers import repo_root


@dataclass(frozen=True)
class Target:
    """A target: `ratio` compares ours to the reference, `value` ours alone, `over` ours less
    the reference (a cost at most `limit` above the reference's)."""

    kind: str  # "ratio>=", "ratio<=", "value<=", "over<="
    limit: float

    def text(self, unit: str) -> str:
        if self.kind == "ratio>=":
            return f">= {self.limit:g}x ref"
        if self.kind == "ratio<=":
            return f"<= {self.limit:g}x ref"
        if self.kind == "over<=":
            return f"<= ref + {self.limit:g} {unit}"
        return f"<= {self.limit:g}x" if unit == "x" else f"<= {self.limit:g} {unit}"

    def verdict(
        self, ours: float | None, ratio: float | None, reference: float | None = None
    ) -> str:
        """`met`, or `missed` and by how much."""
        if self.kind == "over<=":
            if ours is None or reference is None:
                return "no data"
            over = ours - reference
            return "met" if over <= self.limit else f"missed by {over - self.limit:.2f}"
        value = ours if self.kind == "value<=" else ratio
        if value is None:
            return "no data"
        if self.kind == "ratio>=":
            if value >= self.limit:
                return "met"
            return f"missed by {100 * (1 - value / self.limit):.0f}%"
        if value <= self.limit:
            return "met"
        if value < 2 * self.limit:
            return f"missed by {100 * (value / self.limit - 1):.0f}%"
        return f"missed: {value / self.limit:.1f}x the limit"


@dataclass
class Row:
    key: str
    label: str
    unit: str
    target: Target | None = None
    ours: float | None = None
    reference: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.ours is None or not self.reference:
            return None
        return self.ours / self.reference

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return self.target.verdict(self.ours, self.ratio, self.reference)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ratio"] = self.ratio
        data["verdict"] = self.verdict
        data["target"] = None if self.target is None else asdict(self.target)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Row:
        target = data.get("target")
        return cls(
            key=data["key"],
            label=data["label"],
            unit=data["unit"],
            ours=data.get("ours"),
            reference=data.get("reference"),
            target=None if target is None else Target(**target),
            note=data.get("note", ""),
        )


@dataclass
class Report:
    """Everything one run produced."""

    rows: list[Row] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # e.g. the soak's slices
    machine: dict[str, str] = field(default_factory=dict)
    command: str = ""
    date: str = ""
    failures: list[str] = field(default_factory=list)

    def row(self, key: str) -> Row:
        for row in self.rows:
            if row.key == key:
                return row
        raise KeyError(key)

    def write(self, path: Path) -> None:
        data = {
            "date": self.date,
            "command": self.command,
            "machine": self.machine,
            "rows": [row.as_json() for row in self.rows],
            "details": self.details,
            "failures": self.failures,
        }
        path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")

    @classmethod
    def read(cls, path: Path) -> Report:
        data = orjson.loads(path.read_bytes())
        return cls(
            rows=[Row.from_json(row) for row in data["rows"]],
            details=data.get("details", {}),
            machine=data.get("machine", {}),
            command=data.get("command", ""),
            date=data.get("date", ""),
            failures=data.get("failures", []),
        )


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "req/s":
        return f"{value:,.0f}"
    if unit in ("MiB", "attempts"):
        return f"{value:,.0f}"
    if unit == "x":
        return f"{value:.2f}x"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _cells(row: Row) -> list[str]:
    ratio = "" if row.ratio is None or row.unit == "x" else f"{row.ratio:.2f}"
    target = row.target.text(row.unit) if row.target else ""
    return [
        row.label,
        row.unit,
        fmt(row.ours, row.unit),
        fmt(row.reference, row.unit),
        ratio,
        target,
        row.verdict,
        row.note,
    ]


HEADERS = ["figure", "unit", "ours", "reference", "ratio", "target", "verdict", "note"]


def text_table(rows: list[Row]) -> str:
    cells = [HEADERS, *(_cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADERS))]
    lines = []
    for index, line in enumerate(cells):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(line.rstrip() for line in lines)


def markdown_table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for row in rows:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in _cells(row)) + " |")
    return "\n".join(lines)


def machine() -> dict[str, str]:
    """What the numbers were measured on."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    memory = "unknown"
    try:
        with open("/proc/meminfo") as info:
            kib = int(next(line.split()[1] for line in info if line.startswith("MemTotal")))
            memory = f"{kib / 2**20:.0f} GiB"
    except (OSError, StopIteration):
        pass
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
    commit = subprocess.run(
        ["git", "-C", str(repo_root()), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "os": platform.platform(),
        "python": platform.python_version(),
        "wrk": (wrk.stdout or wrk.stderr).split("\n", 1)[0].split(" Copyright")[0],
        "commit": commit.stdout.strip(),
    }


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "latest.json"
    report = Report.read(path)
    m = report.machine
    print(
        f"{report.date}, `{report.command}` at {m.get('commit', '?')}: {m.get('cpu')}, "
        f"{m.get('cores')} cores, {m.get('memory')}, {m.get('os')}, Python {m.get('python')}, "
        f"{m.get('wrk')}; load average {m.get('load average')}.\n"
    )
    print(markdown_table(report.rows))


if __name__ == "__main__":
    main()
