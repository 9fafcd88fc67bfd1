"""The checkout and its build settings, for the tests of packaging and the compiled build."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (or the copy the compiled run uses)


def compiled_modules() -> list[str]:
    """The modules the wheel's mypyc hook compiles, as pyproject.toml lists them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["mypyc"]["include"]
    return [pattern.strip("/").removesuffix(".py").replace("/", ".") for pattern in include]
