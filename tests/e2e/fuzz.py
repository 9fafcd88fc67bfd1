"""`make fuzz`: the long schemathesis run, the suite's conformance run given minutes instead of
a budget of examples, and a report of what it did.

    python -m tests.e2e.fuzz [--minutes 20] [--seed 20261122] [--out build/fuzz]

It serves a fresh mock (frozen clock, rate limits off) on a free loopback port and runs
schemathesis with every check but the documented exclusions (tests/support/fuzz.py): the
examples, coverage and fuzzing phases for half the time, then the stateful phase for the other
half, on the same server. It writes `report.json` (cases, cases by phase, answers and successes
per operation, statuses, failures by check, server errors, non-envelope answers) and
`summary.md` beside schemathesis's own reports in the output folder. Exit status 0 only if
there was no failure, no 5xx, no non-envelope answer and every operation succeeded at least once.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.fuzz import SEED, FuzzReport, run_schemathesis

EXAMPLES = 1000  # per operation and phase: more than the time allows, so time decides


def summary_markdown(report: FuzzReport, minutes: float, seed: int, took: float) -> str:
    figures = report.as_dict()
    lines = [
        f"# make fuzz: {minutes:g} minutes, seed {seed}",
        "",
        f"- ran for {took / 60:.1f} minutes, {figures['cases']:,} answered cases "
        f"({', '.join(f'{k} {v:,}' for k, v in figures['cases_by_phase'].items())})",
        f"- operations answered: {figures['operations_answered']} of "
        f"{figures['operations_total']}; answered with a success: "
        f"{figures['operations_succeeded']} (without one by design: "
        f"{', '.join(figures['answered_without_success_by_design']) or 'none'})",
        f"- failures by check: {figures['failures_by_check'] or 'none'}",
        f"- server errors: {len(report.server_errors)}; non-envelope answers: "
        f"{len(report.not_envelope)}",
        "",
        "| operation | answers | successes | successes after a link |",
        "|---|---:|---:|---:|",
    ]
    for op, row in figures["operations"].items():
        lines.append(
            f"| {op} | {row['answers']:,} | {row['succeeded']:,} | "
            f"{row['succeeded_after_a_link']:,} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.fuzz", description=__doc__)
    parser.add_argument(
        "--minutes",
        type=float,
        default=float(os.environ.get("FUZZ_MINUTES", "20")),
        help="time budget (default: $FUZZ_MINUTES or 20)",
    )
    parser.add_argument(
        "--seed", type=int, default=int(os.environ.get("FUZZ_SEED", SEED)), help="run seed"
    )
    parser.add_argument("--out", type=Path, default=Path("build/fuzz"), help="report folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out.resolve()
    seconds = max(2, round(args.minutes * 60))
    server = LiveServer(create_app(Settings(clock_mode="frozen", rate_limit=False))).start()
    started = time.monotonic()
    runs = []
    try:
        # Half the time for the examples, coverage and fuzzing phases, half for the stateful
        # one (given the whole budget, the fuzzing phase would take nearly all of it).
        for phases, share in (("examples,coverage,fuzzing", seconds // 2), ("stateful", 0)):
            budget = share or seconds - round(time.monotonic() - started)
            folder = out / phases.split(",")[-1]
            folder.mkdir(exist_ok=True)
            runs.append(
                run_schemathesis(
                    server.base_url,
                    folder,
                    *("--phases", phases, "--max-examples", str(EXAMPLES)),
                    *("--max-time", str(max(1, budget))),
                    seed=args.seed,
                    timeout=budget + 600,
                )
            )
    finally:
        server.stop()
    took = time.monotonic() - started
    report = runs[0].report
    report.merge(runs[1].report)
    figures = {
        "minutes": args.minutes,
        "seed": args.seed,
        "seconds_taken": round(took),
        "schemathesis_exit_codes": [run.summary["exit_code"] for run in runs],
        "schemathesis_failures": sum(len(run.summary["failures"]) for run in runs),
        **report.as_dict(),
    }
    (out / "report.json").write_text(json.dumps(figures, indent=2) + "\n")
    summary = summary_markdown(report, args.minutes, args.seed, took)
    (out / "summary.md").write_text(summary)
    for run in runs:
        print(run.output[-2000:])
    print(summary)
    print(f"report: {out / 'report.json'}")
    clean = (
        all(run.summary["exit_code"] == 0 for run in runs)
        and not report.failed_checks
        and not report.server_errors
        and not report.not_envelope
        and not report.unreached()
    )
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
