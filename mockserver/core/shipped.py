"""Where the shipped seeds and scenarios are: inside the wheel, or at the top of a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # mockserver/


def data_dir(name: str) -> Path:
    """`seeds` or `scenarios`: the packaged copy if installed from a wheel, else the checkout's."""
    packaged = _PACKAGE / "_data" / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / name


def default_seed_path() -> Path:
    return data_dir("seeds") / "default.yaml"
