"""Snapshots: the whole state of a sandbox as a JSON file, and back.

A snapshot is data (`file`: the envelope; `state`: what it holds; `worlds`: the seed's share
written as references; `records`: the allow-list of records and their fields). Saving writes
the file's bytes once; restoring reads them into new objects, checking every field, and only
then swaps them in, so a file that does not read changes nothing, and one snapshot can be
restored any number of times. The same state gives the same bytes.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from mockserver.core.errors import Conflict, NotFound, SnapshotError, ValidationError
from mockserver.core.kinds import Invalid
from mockserver.core.memory import collector_paused
from mockserver.engine.named_snapshots import Snapshot, Snapshots
from mockserver.engine.parts import Parts
from mockserver.engine.snapshots import file, state

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_NAMED = 64  # named snapshots a sandbox keeps at most
MAX_KEPT_BYTES = 1 << 30  # bytes of their files together
UPLOAD_MAX = 1 << 30  # bytes of a snapshot file an upload reads at most (413 beyond)


def check_name(name: Any) -> str:
    """A snapshot name: 1 to 64 letters, digits, `_`, `-` or `.`; else 422 on `name`."""
    if not isinstance(name, str) or NAME.fullmatch(name) is None:
        raise ValidationError(
            "'name' must be 1 to 64 letters, digits, '_', '-' or '.'.", param="name"
        )
    return name


def find(sandbox: Parts, name: str) -> Snapshot:
    """The snapshot called `name`; 404 if there is none."""
    snapshot = sandbox.snapshots.named.get(name)
    if snapshot is None:
        raise NotFound(f"No such snapshot: '{name}'.", param="name")
    return snapshot


def check_room(sandbox: Parts, name: str, size: int = 0) -> None:
    """409 if keeping a file of `size` bytes as `name` would pass a limit: the number of named
    snapshots or the bytes of their files (a snapshot of that name is replaced: it does not
    count)."""
    others = [s for s in sandbox.snapshots.named.values() if s.name != name]
    if len(others) >= MAX_NAMED:
        raise Conflict(
            f"The sandbox keeps {MAX_NAMED} named snapshots, the most it may: delete one "
            "first, or save over one of their names.",
            param="name",
        )
    kept = sum(s.size for s in others)
    if kept + size > MAX_KEPT_BYTES:
        raise Conflict(
            f"The snapshot ({size:,} bytes) would take the sandbox's snapshot files past "
            f"{MAX_KEPT_BYTES:,} bytes, the most it keeps ({kept:,} are kept): delete one "
            "first.",
            param="name",
        )


def keep(sandbox: Parts, snapshot: Snapshot) -> Snapshot:
    """Keep `snapshot` under its name (replacing one of that name); 409 past a limit."""
    check_room(sandbox, snapshot.name, snapshot.size)
    sandbox.snapshots.named[snapshot.name] = snapshot
    return snapshot


def take(sandbox: Parts, name: str) -> Snapshot:
    """Save the sandbox as `name` (replacing a snapshot of that name); call with no
    background work running."""
    check_room(sandbox, name)
    created_at = sandbox.store.now()
    with collector_paused():
        data = file.write(sandbox, created_at, state.capture(sandbox))
    return keep(sandbox, Snapshot(name, created_at, data))


def put_back(sandbox: Parts, snapshot: Snapshot) -> None:
    """Restore a named snapshot: SnapshotError, and nothing changed, if it does not read. Its
    bytes were checked when it was saved or uploaded and never change: its checksum is not
    worked out again."""
    with collector_paused():
        parsed = file.parse(sandbox, snapshot.data, verified=True)
        state.apply(sandbox, _read(sandbox, parsed))


def add_file(sandbox: Parts, name: str, data: bytes) -> Snapshot:
    """Keep an uploaded snapshot file as `name` once `read_file` accepts it; 409 past a
    limit."""
    check_room(sandbox, name, len(data))
    return keep(sandbox, read_file(sandbox, name, data))


def read_file(sandbox: Parts, name: str, data: bytes) -> Snapshot:
    """The snapshot of an uploaded file, once all of it has been read (into objects that are
    then dropped: the file is read again at each restore); SnapshotError else. A gzipped file
    is kept as its JSON. Changes nothing: it may run in a worker thread while the sandbox
    serves (it only reads the sandbox's seed and settings)."""
    with collector_paused():
        parsed = file.parse(sandbox, data)
        _read(sandbox, parsed)
    if data.startswith(b"\x1f\x8b"):
        data = orjson.dumps(parsed)
    return Snapshot(name, parsed["created_at"], data)


def _read(sandbox: Parts, parsed: dict[str, Any]) -> dict[str, Any]:
    try:
        return state.read(sandbox, parsed["state"])
    except Invalid as error:
        error.path.append("state")
        raise file.refusal(error) from None
    except RecursionError:
        raise SnapshotError("The snapshot is nested too deep.") from None


def checkpoint(sandbox: Parts) -> bytes:
    """The whole sandbox and its named snapshots as one file (what a state directory keeps):
    call with no background work running."""
    named = [
        {"name": s.name, "file": orjson.Fragment(s.data)} for s in sandbox.snapshots.named.values()
    ]
    with collector_paused():
        captured = state.capture(sandbox)
    return file.write(sandbox, sandbox.store.now(), captured, snapshots=named)


def load_checkpoint(sandbox: Parts, data: bytes) -> None:
    """Put back what `checkpoint` wrote (SnapshotError if it cannot be loaded here). The named
    snapshots in it are checked to be this server's; each is read in full when restored."""
    with collector_paused():
        parsed = file.parse(sandbox, data, checkpoint=True)
        read = _read(sandbox, parsed)
    named: dict[str, Snapshot] = {}
    listed = parsed["snapshots"]
    if type(listed) is not list:
        raise SnapshotError("The checkpoint's 'snapshots' must be a list.")
    for item in listed:
        if type(item) is not dict or item.keys() != {"name", "file"}:
            raise SnapshotError("A snapshot of the checkpoint must be an object of name, file.")
        name = check_name(item["name"])
        data = orjson.dumps(item["file"])
        inner = file.parse(sandbox, data)
        named[name] = Snapshot(name, inner["created_at"], data)
    state.apply(sandbox, read)
    sandbox.snapshots.named = named


def listing(sandbox: Parts) -> list[Snapshot]:
    """The named snapshots, oldest saved first."""
    return list(sandbox.snapshots.named.values())


__all__ = [
    "MAX_KEPT_BYTES",
    "MAX_NAMED",
    "NAME",
    "UPLOAD_MAX",
    "Snapshot",
    "Snapshots",
    "add_file",
    "check_name",
    "check_room",
    "checkpoint",
    "find",
    "keep",
    "listing",
    "load_checkpoint",
    "put_back",
    "read_file",
    "take",
]
