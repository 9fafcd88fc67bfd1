"""`mockserver seed from-snapshot FILE`: a saved snapshot file as a seed file, as
`GET /_mock/seed` would answer on the server the snapshot was taken on.

The file names the random seed and clock start it was taken with; the seed must be given if
it was not the packaged default. The snapshot is read (checked as an upload is) into a sandbox
of those settings, restored, and its data written as seed YAML on stdout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mockserver.core.clock import format_ts
from mockserver.core.config import Settings
from mockserver.core.errors import ApiError
from mockserver.engine import snapshots
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.snapshots.file import envelope

Command = Callable[..., argparse.ArgumentParser]


def add_command(commands: Any, command: Command) -> None:
    """Add `from-snapshot` to the `seed` commands."""
    found = command(
        "from-snapshot",
        "print a snapshot file's data as seed YAML (what GET /_mock/seed answers)",
        commands,
    )
    found.add_argument("file", type=Path, metavar="FILE", help="a downloaded snapshot file")
    found.add_argument(
        "--seed",
        type=Path,
        metavar="SEED",
        help="the seed the snapshot was taken on (default: the packaged seeds/default.yaml)",
    )


def run(file: Path, seed: Path | None) -> int:
    """Print the seed; exit status 2, with the reason, for a file that does not load."""

    try:
        data = file.read_bytes()
    except OSError as error:
        print(f"mockserver: {file}: {error.strerror or error}", file=sys.stderr)
        return 2
    try:
        head = envelope(data)
        settings = Settings(
            seed_path=seed,
            random_seed=head["random_seed"],
            start_time=format_ts(head["start"]),
            clock_mode="frozen",
        )
        sandbox = SandboxState.build(settings)
        snapshot = snapshots.add_file(sandbox, "file", data)
        snapshots.put_back(sandbox, snapshot)
        sys.stdout.write(sandbox.control.seed_file())
    except (ApiError, ValueError) as error:
        print(f"mockserver: {file}: {error}", file=sys.stderr)
        return 2
    return 0
