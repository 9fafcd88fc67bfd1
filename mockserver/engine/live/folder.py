"""The scenario files of a `--scenario-dir`."""

from __future__ import annotations

from pathlib import Path


def directory_files(directory: Path) -> list[Path]:
    """The scenario files of a `--scenario-dir`: its `*.yaml`, by name (hidden ones left out:
    an editor's working copies)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.yaml") if p.is_file() and not p.name[:1] == ".")
