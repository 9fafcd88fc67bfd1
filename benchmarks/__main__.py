"""`python -m benchmarks`: run the benchmarks, print the table, write the JSON.

python -m benchmarks                       # what `make bench` runs (about 10 minutes)
python -m benchmarks --only soak --soak 300   # what `make bench-soak` runs
python -m benchmarks --only idempotency       # 200,000 kept 409s: memory within the caps
python -m benchmarks --only peers             # ours beside Prism, json-server and WireMock
python -m benchmarks --quick               # a short smoke run of every figure
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .report import machine, now_utc, text_table
from .run import GROUPS, Options, Run

DEFAULT_OUT = Path(__file__).resolve().parent / "latest.json"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="each round of a load")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per load")
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--startups", type=int, default=5, help="start-ups per median")
    parser.add_argument("--documents", type=int, default=100_000, help="size of the large seed")
    parser.add_argument("--soak", type=float, default=30.0, help="seconds of POST soak")
    parser.add_argument("--slice", type=float, default=10.0, help="seconds per soak sample")
    parser.add_argument(
        "--idempotency-requests",
        type=int,
        default=200_000,
        help="POSTs of the idempotency soak, each with a new key",
    )
    parser.add_argument("--only", default=",".join(GROUPS), help=f"some of {','.join(GROUPS)}")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the JSON goes")
    parser.add_argument("--quick", action="store_true", help="short runs, a 10k seed: a smoke test")
    parser.add_argument(
        "--loop-python",
        type=Path,
        help="the interpreter of a venv holding only the package and pytest, for the one-test "
        "pytest loop (make bench gives .venv-loop's)",
    )
    parser.add_argument(
        "--peers",
        type=Path,
        help="where `make peers` installed Prism, json-server and WireMock from npm (default: "
        "build/peers of this checkout); a peer missing there is skipped with a note",
    )
    parser.add_argument(
        "--baseline-python",
        type=Path,
        help="the interpreter of a venv with another install of mockserver (an earlier "
        "commit's, say): its server joins the load rounds and callgrind, as the baseline.* rows "
        "(make bench BASELINE=REV builds one)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    groups = tuple(g.strip() for g in args.only.split(",") if g.strip())
    unknown = set(groups) - set(GROUPS)
    if unknown:
        print(f"unknown group(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    options = Options(
        seconds=args.seconds,
        rounds=args.rounds,
        warmup=args.warmup,
        startups=args.startups,
        big_documents=args.documents,
        soak_seconds=args.soak,
        idempotency_requests=args.idempotency_requests,
        slice_seconds=args.slice,
        groups=groups,
        run_id=str(os.getpid()),
        loop_python=args.loop_python,
        baseline_python=args.baseline_python,
    )
    if args.peers is not None:
        options.peers_folder = args.peers
    if args.quick:
        options.seconds, options.rounds, options.warmup, options.page_seconds = 2.0, 1, 0.5, 1.0
        options.startups, options.big_documents, options.depths = 2, 10_000, (1, 10, 100)
        options.soak_seconds, options.slice_seconds = 6.0, 2.0
        options.idempotency_requests = 20_000
        options.backlog_runs, options.plugin_tests, options.plugin_repeat = 1, 50, 1
        options.plugin_imports, options.loop_rounds = 3, 3
        options.backlog_layouts = ("endpoints16", "endpoint1")  # not the 30,000-attempt bound
        options.hostile_seconds = 3.0
        options.peer_warmup = 1.0
    load_before = os.getloadavg()[0]
    report = Run(options).execute()
    report.date = now_utc()
    given = sys.argv[1:] if argv is None else argv
    report.command = " ".join(["python -m benchmarks", *given])
    report.machine = machine()
    # Other work on the machine skews every figure; the load average tells a reader how much.
    report.machine["load average"] = f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(text_table(report.rows))
    report.write(args.out)
    print(f"\nwritten to {args.out}", file=sys.stderr)
    for failure in report.failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
