"""Where scenario files are found: a path, or the name of a scenario in a folder (the
shipped `scenarios/`), as `run --scenario`, `replay`, `validate` and the control plane take them.
"""

from __future__ import annotations

from pathlib import Path

from mockserver.core.errors import ScenarioError
from mockserver.scenarios.reach import closest


def shipped_scenario(name: str, directory: Path | None) -> Path | None:
    """The scenario file called `name` (`legal_hold`) in `directory`, if there is one."""
    if directory is None or not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    for suffix in (".yaml", ".yml"):
        path = directory / f"{name}{suffix}"
        if path.is_file():
            return path
    return None


def shipped_names(directory: Path | None) -> list[str]:
    """The names of the scenarios in `directory`, sorted."""
    if directory is None or not directory.is_dir():
        return []
    return sorted(path.stem for path in directory.glob("*.y*ml"))


def scenario_file(given: Path, directory: Path | None) -> Path:
    """What a user means by a scenario argument: the file when it exists, else the shipped
    scenario of that name in `directory`. ScenarioError when a bare name is neither; any other
    missing path is returned, and its load says it cannot be read."""
    if given.exists():
        return given
    shipped = shipped_scenario(str(given), directory)
    if shipped is not None:
        return shipped
    if given.suffix == "" and len(given.parts) == 1:
        available = shipped_names(directory)
        close = closest(str(given), available)
        hint = f"did you mean {close}? " if close else ""
        names = ", ".join(available) or "none"
        raise ScenarioError(
            str(given),
            1,
            f"no such file, and no shipped scenario of that name ({hint}shipped: {names})",
        )
    return given
