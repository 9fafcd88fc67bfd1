"""Where the shipped tour of `mockserver conform` is: a data file beside this module."""

from __future__ import annotations

from pathlib import Path


def tour_path() -> Path:
    """The tour: every endpoint of the API and every error status a client can provoke."""
    return Path(__file__).resolve().parent / "tour.yaml"
