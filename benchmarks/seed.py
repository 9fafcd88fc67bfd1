"""The large seed: `mockserver seed generate --documents N`, cached in a temp folder.

Generating 100k documents takes a while, so the file is kept between runs under the system
temp folder, named by the document count and a digest of what makes it (the generator's
source and the installed Faker), and written under a temporary name then renamed, so an
interrupted run never leaves a half file to be reused.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from .servers import repo_root

GENERATE_TIMEOUT = 900.0


def cache_dir() -> Path:
    path = Path(tempfile.gettempdir()) / "mockserver-bench"
    path.mkdir(exist_ok=True)
    return path


def _fingerprint(documents: int) -> str:
    source = (repo_root() / "mockserver" / "seeds" / "generate.py").read_bytes()
    made_by = f"{documents}:{version('faker')}:".encode() + source
    return hashlib.sha256(made_by).hexdigest()[:12]


def large_seed(documents: int) -> Path:
    """The path of a generated seed with `documents` documents, made if not cached."""
    path = cache_dir() / f"seed-{documents}-{_fingerprint(documents)}.yaml"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    with open(partial, "wb") as out:
        subprocess.run(
            [sys.executable, "-m", "mockserver", "seed", "generate", "--documents", str(documents)],
            stdout=out,
            check=True,
            timeout=GENERATE_TIMEOUT,
            cwd=repo_root(),
        )
    partial.rename(path)
    return path
