"""The fidelity commands' work: `record` (a recording proxy), `import` (a recording to a
scenario) and `conform` (the mock against the service). Imported only when one of them runs
(`fidelity.py` parses their arguments): the fidelity package is one of the optional heavy parts.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from mockserver.cli.scenarios import Validator
from mockserver.core.errors import LoadError
from mockserver.fidelity import reports
from mockserver.fidelity.conform import UpstreamUnreachable, conform, fresh_mock, upstream_client
from mockserver.fidelity.importer import scenario_yaml
from mockserver.fidelity.proxy import RecordingProxy, open_recording
from mockserver.fidelity.recording import read
from mockserver.fidelity.setup import SeedIds
from mockserver.fidelity.tour import tour_path
from mockserver.scenarios.loader import load_scenario
from mockserver.serving.server import serve_as_is


def run_record(args: argparse.Namespace) -> int:
    """Serve a recording proxy to the upstream until stopped, appending to the recording."""
    if not args.upstream.startswith(("http://", "https://")):
        print(
            f"mockserver: --upstream must be an http:// or https:// URL, got {args.upstream!r}",
            file=sys.stderr,
        )
        return 2
    try:
        out = open_recording(args.out)
    except OSError as error:
        print(f"mockserver: cannot open {args.out}: {error.strerror}", file=sys.stderr)
        return 2
    with out:
        print(
            f"mockserver recording http://{args.host}:{args.port} -> {args.upstream} "
            f"into {args.out}",
            flush=True,
        )
        serve_as_is(
            RecordingProxy(args.upstream, out),
            host=args.host,
            port=args.port,
            log_level="warning",
        )
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Write the scenario, then check it as `mockserver validate` would (against the seed
    the replay starts from): a scenario the mock would refuse is reported, exit status 1."""
    exchanges = read(args.recording)  # a bad file raises RecordingError: exit 2
    name = args.name or _scenario_name(args.scenario_out)
    text = scenario_yaml(
        exchanges, name=name, key=args.key, source=args.recording.name, seed=SeedIds(args.seed)
    )
    try:
        args.scenario_out.write_text(text, "utf-8")
    except OSError as error:
        print(f"mockserver: cannot write {args.scenario_out}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        Validator(args.seed).check(args.scenario_out)
    except LoadError as error:
        print(f"mockserver: the scenario written does not load:\n{error}", file=sys.stderr)
        return 1
    print(f"{args.scenario_out}: {len(exchanges)} exchanges imported")
    return 0


def _scenario_name(path: Path) -> str:
    name = re.sub(r"[^a-z0-9_-]+", "_", path.stem.lower()).strip("_-")[:64]
    return name or "imported"


def run_conform(args: argparse.Namespace) -> int:
    """Run the steps against the upstream and a fresh mock, and report where they differ."""
    if not args.upstream.startswith(("http://", "https://")):
        print(
            f"mockserver: --upstream must be an http:// or https:// URL, got {args.upstream!r}",
            file=sys.stderr,
        )
        return 2
    scenario = load_scenario(args.steps or tour_path())  # a bad file raises: exit 2
    upstream = upstream_client(args.upstream, args.timeout)
    with upstream, fresh_mock(scenario) as mock:
        try:
            outcomes = conform(
                scenario,
                upstream=upstream,
                upstream_key=args.key,
                mock=mock,
                out=lambda outcome: print("\n".join(reports.lines(outcome)), flush=True),
            )
        except UpstreamUnreachable as error:
            print(f"mockserver: the upstream did not answer: {error}", file=sys.stderr)
            return 2
    print(reports.summary(outcomes))
    try:
        if args.json is not None:
            args.json.write_text(reports.as_json(outcomes, args.upstream), "utf-8")
        if args.junit is not None:
            args.junit.write_bytes(reports.as_junit(outcomes, args.upstream))
    except OSError as error:
        print(f"mockserver: cannot write the report: {error}", file=sys.stderr)
        return 2
    return 1 if reports.drifted(outcomes) else 0
