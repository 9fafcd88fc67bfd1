"""The scenario side of the command line: `validate` of either kind of file, `replay`, `schema`.

`main.py` parses arguments and maps load errors to exit codes; this module does the work, so
that the scenario commands stay in one place.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mockserver.core.config import DEFAULT_RANDOM_SEED, Settings
from mockserver.core.errors import ScenarioError
from mockserver.core.problems import Problem
from mockserver.core.shipped import data_dir
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.snapshots.schema import snapshot_schema
from mockserver.scenarios.files import scenario_file
from mockserver.scenarios.loader import load_scenario, looks_like_seed
from mockserver.scenarios.schema import SCENARIO_SCHEMA
from mockserver.seeds.loader import load_seed
from mockserver.seeds.source_text import read_source
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.replay import Runner
from mockserver.web.app import create_app


def scenario_path(given: Path) -> Path:
    """A scenario argument as a file: the file itself, or the shipped scenario of that name
    (`legal_hold`), as `run --scenario` reads it; ScenarioError for a name that is neither."""

    return scenario_file(given, data_dir("scenarios"))


class Validator:
    """`mockserver validate`: a seed is checked by loading it; a scenario by reading it and by
    the checks of loading it into a sandbox of `seed` (the default seed when None), the same
    code that `run`, `replay` and the control plane use. The sandbox is built, and never
    served, for the first scenario."""

    def __init__(self, seed: Path | None = None) -> None:
        self.seed = seed
        self._sandbox: SandboxState | None = None
        # The last scenario's warnings: match criteria naming what the seed lacks.
        self.warnings: list[Problem] = []

    def check(self, given: Path) -> tuple[Path, str]:
        """Check a seed or a scenario (told apart by content; a bare name is a shipped
        scenario); LoadError with every problem found if it is bad. The file and its kind.

        A scenario's parts that pass the file's own checks are checked against the seed even
        when other parts fail them, so one run reports every problem that can be found."""

        self.warnings = []
        path = scenario_path(given)
        try:
            text = path.read_text("utf-8-sig", errors="replace")
        except OSError:
            text = ""  # the loader reports the unreadable file with its own message
        if looks_like_seed(text):
            load_seed(path)
            return path, "seed"
        text = read_source(path, ScenarioError, "scenario")
        sandbox = self.sandbox()
        scenario, problems = sandbox.control.scenario_problems(text, str(path))
        self.warnings = sandbox.scenarios.warnings(scenario)
        if problems:
            raise ScenarioError.every(problems)
        return path, "scenario"

    def sandbox(self) -> SandboxState:
        """The sandbox scenarios are checked against; a bad seed raises its SeedError."""
        if self._sandbox is None:
            settings = Settings(seed_path=self.seed, clock_mode="frozen")
            self._sandbox = SandboxState.build(settings)
        return self._sandbox


def replay(
    path: Path,
    *,
    seed: Path | None = None,
    random_seed: int = DEFAULT_RANDOM_SEED,
    start_time: str | None = None,
) -> int:
    """Run the scenario's steps on a fresh in-process server with a frozen clock: one line per
    step, then `N passed, N failed`. Exit status 0 only if every step passed."""

    scenario = load_scenario(scenario_path(path))  # a bad file raises before any server is built
    settings = Settings(
        seed_path=seed, clock_mode="frozen", random_seed=random_seed, start_time=start_time
    )
    app = create_app(settings)
    app.state.control.arm(scenario)
    with inprocess_client(app, base_url="http://mockserver", timeout=60) as client:
        ok = Runner(client, scenario).run(lambda line: print(line, flush=True))
    return 0 if ok else 1


def print_schema(kind: str) -> int:
    """Print the JSON Schema of a scenario file or of a snapshot file."""
    if kind == "scenario":
        print(json.dumps(SCENARIO_SCHEMA, indent=2))
        return 0
    if kind == "snapshot":
        print(json.dumps(snapshot_schema(), indent=2))
        return 0
    print(f"mockserver: no schema named '{kind}' (have: scenario, snapshot)", file=sys.stderr)
    return 2
