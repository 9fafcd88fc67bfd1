"""The lock `make test` installs from (requirements/dev.txt) agrees with pyproject.toml: every
requirement of the package and of its locked extras is pinned there, at a version inside the
range pyproject.toml gives, with hashes. A range changed without `make lock` fails here, not on
a fresh clone."""

from __future__ import annotations

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.build import ROOT

LOCK = ROOT / "requirements" / "dev.txt"
LOCKED_EXTRAS = ("test", "docs", "container")
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^ ;\\]+)", re.MULTILINE)


def _pins() -> dict[str, Version]:
    text = LOCK.read_text()
    return {canonicalize_name(name): Version(version) for name, version in PIN.findall(text)}


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in LOCKED_EXTRAS:
        wanted += project["optional-dependencies"][extra]
    return [Requirement(line) for line in wanted]


@pytest.mark.parametrize("requirement", _requirements(), ids=str)
def test_every_requirement_is_pinned_inside_its_range(requirement: Requirement) -> None:
    if requirement.marker is not None and not requirement.marker.evaluate():
        pytest.skip(f"{requirement} does not apply here")
    pins = _pins()
    name = canonicalize_name(requirement.name)
    assert name in pins, f"{requirement.name} is not in the lock: run `make lock`"
    assert requirement.specifier.contains(pins[name], prereleases=True), (
        f"the lock pins {requirement.name}=={pins[name]}, outside {requirement.specifier}: "
        "run `make lock`"
    )


def test_every_pin_carries_hashes() -> None:
    blocks = re.split(r"\n(?=[A-Za-z0-9])", LOCK.read_text().split("\n", 2)[2])
    pinned = [block for block in blocks if PIN.match(block)]
    assert len(pinned) == len(_pins()) > 0
    for block in pinned:
        assert "--hash=sha256:" in block, block.splitlines()[0]
