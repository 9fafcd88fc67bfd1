"""The snapshot file: what `GET /_mock/snapshots/{name}/download` answers and an upload reads.

    MOCKSNAP\\n
    {"format": 1, "mockserver": "0.1.0", "seed": "<sha256>", "random_seed": 42,
     "start": 1767225600, "created_at": 1767225600, "sha256": "<of the state>", "bytes": N}\\n
    <N bytes of state: `snapshots.capture`>

The header is one line of JSON. A file is refused (422, param `file`, nothing changed) when it
is not a snapshot, was written by another format or another mockserver version (the state is
a pickle of this version's classes), belongs to another seed, random seed or start time (the
state holds references to seeded objects and times shifted from that start), or when its
state does not match its checksum (damaged). Only then is the state unpickled, and then only
into mockserver's own classes (`snapshots.restore(..., restricted=True)`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

import mockserver
from mockserver.core.errors import SnapshotError

if TYPE_CHECKING:
    from mockserver.engine.sandbox import Sandbox

MAGIC = b"MOCKSNAP\n"
FORMAT = 1
_HEADER_MAX = 4096


def header(sandbox: Sandbox, created_at: int, state: bytes) -> bytes:
    """What comes before `state` (taken at mock time `created_at`) in its file."""
    fields = {
        **_identity(sandbox),
        "created_at": created_at,
        "sha256": hashlib.sha256(state).hexdigest(),
        "bytes": len(state),
    }
    return MAGIC + orjson.dumps(fields) + b"\n"


def decode(sandbox: Sandbox, data: bytes) -> tuple[int, bytes]:
    """(created_at, state) of a file made by `header` + state for a sandbox like this one, or
    SnapshotError saying why not."""
    if not data.startswith(MAGIC):
        raise SnapshotError("The file is not a mockserver snapshot (it lacks the header).")
    end = data.find(b"\n", len(MAGIC), len(MAGIC) + _HEADER_MAX)
    try:
        header = orjson.loads(data[len(MAGIC) : end]) if end > 0 else None
    except orjson.JSONDecodeError:
        header = None
    if not isinstance(header, dict):
        raise SnapshotError("The snapshot's header is damaged.")
    if header.get("format") != FORMAT:
        raise SnapshotError(
            f"The snapshot is in format {header.get('format')!r}; this server reads format "
            f"{FORMAT}."
        )
    for name, mine in _identity(sandbox).items():
        if header.get(name) != mine:
            raise SnapshotError(_MISMATCH[name].format(theirs=header.get(name), mine=mine))
    state = data[end + 1 :]
    created_at = header.get("created_at")
    if (
        header.get("bytes") != len(state)
        or header.get("sha256") != hashlib.sha256(state).hexdigest()
        or not isinstance(created_at, int)
    ):
        raise SnapshotError("The snapshot is damaged: its state does not match its checksum.")
    return created_at, state


_MISMATCH = {
    "mockserver": "The snapshot was written by mockserver {theirs}; this server is {mine}.",
    "seed": "The snapshot was taken on another seed than this server's.",
    "random_seed": "The snapshot was taken with --random-seed {theirs}; this server uses {mine}.",
    "start": "The snapshot was taken on a server that started its clock at another time "
    "(--start-time) than this one.",
}


def _identity(sandbox: Sandbox) -> dict[str, Any]:
    """What a server must share with the one that wrote a file to load it."""
    store = sandbox.store
    return {
        "format": FORMAT,
        "mockserver": mockserver.__version__,
        "seed": seed_fingerprint(sandbox),
        "random_seed": store.random_seed,
        "start": store.start,
    }


def seed_fingerprint(sandbox: Sandbox) -> str:
    """The sha256 of the seed file's bytes (of its name, for a seed made in memory); once."""
    found = sandbox.snapshots.seed_fingerprint
    if found is None:
        source = sandbox.store.seed.source
        path = Path(source)
        raw = path.read_bytes() if path.is_file() else source.encode()
        found = sandbox.snapshots.seed_fingerprint = hashlib.sha256(raw).hexdigest()
    return found
