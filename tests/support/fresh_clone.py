"""Stand-ins for `make run` and `pip install`, for the doc tests of the getting-started pages.

tests/e2e/test_doc_examples.py runs those pages as a new user would, in a folder laid out as a
clone after `make run`. Two of their commands are not run as such in a test of a few seconds:
`make run` creates a venv and installs the package into it before it serves, and `pip install`
installs into an environment. The test's own venv already holds mockserver, so:

- `make run [VAR=value ...]` runs the command the Makefile's `run` recipe ends in, its
  variables expanded as make expands them (`.venv/bin/mockserver run --host ... --port ...`,
  with the test's mockserver as `.venv/bin/mockserver`). The install itself is what
  tests/e2e/test_packaging.py checks.
- `pip install TARGET ...` checks that each target is there to install: a clone of mockserver
  (a folder whose pyproject.toml names it). It installs nothing: the test's `mockserver` is on
  PATH already.

Each is a shell script calling this file: `python fresh_clone.py make ARGS` or `... pip ARGS`.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path

ASSIGNMENT = re.compile(r"^(?P<name>\w+)\s*(?P<op>\?=|:=|=)\s*(?P<value>.*?)\s*$", re.MULTILINE)
RECIPE = re.compile(r"^run:.*\n(?P<lines>(?:\t.*\n?)+)", re.MULTILINE)


def make_run_command(
    makefile: Path, assignments: list[str], environ: Mapping[str, str]
) -> list[str]:
    """The command `make run ASSIGNMENTS` ends in: the last line of the Makefile's run recipe,
    with a variable taken, as make takes it, from a VAR=value argument first, then (for one set
    with `?=`) from the environment, then from the Makefile."""
    text = makefile.read_text(encoding="utf-8")
    definitions = {
        found["name"]: (found["op"], found["value"]) for found in ASSIGNMENT.finditer(text)
    }
    recipe = RECIPE.search(text)
    if recipe is None:
        raise SystemExit(f"make: {makefile} has no run recipe")
    overrides = {}
    for assignment in assignments:
        name, equals, value = assignment.partition("=")
        if not equals:
            raise SystemExit(
                f"make (doc-test stand-in): only `make run [VAR=value ...]`, not {name}"
            )
        overrides[name] = value

    def value(name: str) -> str:
        if name in overrides:
            return overrides[name]
        if name not in definitions:
            raise SystemExit(f"make: the run recipe uses $({name}), which the Makefile never sets")
        op, raw = definitions[name]
        if op == "?=" and name in environ:
            return environ[name]
        return expand(raw)

    def expand(text: str) -> str:
        return re.sub(r"\$\((\w+)\)", lambda found: value(found[1]), text)

    return shlex.split(expand(recipe["lines"].splitlines()[-1].strip()))


def make(arguments: list[str]) -> None:
    if arguments[:1] != ["run"]:
        raise SystemExit(
            f"make (doc-test stand-in): only `make run`, not make {shlex.join(arguments)}"
        )
    command = make_run_command(Path("Makefile"), arguments[1:], os.environ)
    print(shlex.join(command), flush=True)  # make echoes each recipe line it runs
    os.execvp(command[0], command)


def pip(arguments: list[str]) -> None:
    if arguments[:1] != ["install"]:
        raise SystemExit(
            f"pip (doc-test stand-in): only `pip install`, not pip {shlex.join(arguments)}"
        )
    targets = [argument for argument in arguments[1:] if not argument.startswith("-")]
    if not targets:
        raise SystemExit("pip: install what?")
    for target in targets:
        project = Path(target) / "pyproject.toml"
        config = tomllib.loads(project.read_text(encoding="utf-8")) if project.is_file() else {}
        if config.get("project", {}).get("name") != "mockserver":
            raise SystemExit(f"pip: {target} is not a clone of mockserver")
        print(f"{target}: there to install (the doc tests' mockserver stands for it)")


if __name__ == "__main__":
    tool, *rest = sys.argv[1:]
    {"make": make, "pip": pip}[tool](rest)
