"""The snapshot file: one JSON object (gzip allowed on upload), described by the schema that
`mockserver schema snapshot` prints.

    {"format": 1, "mockserver": "0.1.0", "seed": "<sha256 of the seed file>",
     "random_seed": 42, "start": 1767225600, "created_at": 1767225600,
     "sha256": "<of [created_at, state]>", "state": {...}}

`format` numbers the data format; a file of an earlier format is migrated on reading
(`MIGRATIONS`), one of a later one is refused. `mockserver` says who wrote it and is not
checked. The seed, random seed and start time must be this server's: the state refers to
seeded objects and to times shifted from that start (an account sandbox's start is not
checked: see `_UNCHECKED`). `sha256` (of the compact JSON of
`[created_at, state]`) finds a damaged file; a file edited by hand may leave it out. A
checkpoint (what a state directory keeps) is the same object with `"snapshots"`: the named
snapshots' files, each in full.

Reading is bounded whatever the bytes: a size cap before and after decompression, a cap on
what parsing would build for that size (`json_cost`: many tiny values cost far more than their
bytes), JSON's own nesting limit, and a refusal (`SnapshotError`, 422 `param: "file"`) that
names the first place that is wrong. Nothing in a file names a class or runs. A checkpoint is
the server's own file and is not capped.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from mockserver.core.errors import SnapshotError
from mockserver.core.kinds import Invalid, Reader
from mockserver.core.version import __version__
from mockserver.engine.parts import Parts
from mockserver.engine.snapshots import json_cost
from mockserver.engine.snapshots.format3_streams import plain_streams
from mockserver.engine.snapshots.records import TIME

FORMAT = 4
DAMAGED = (
    "The file is damaged: its state does not match its checksum ('sha256'; leave it out of a "
    "file edited by hand)."
)
MAX_BYTES = (
    1 << 30
)  # bytes of JSON a file may hold, once decompressed (a full journal: 100s of MiB)
# What a file's parsed values may take: this many times its bytes, or this many bytes if more.
COST_PER_BYTE = 6
COST_FLOOR = 64 << 20
_GZIP = b"\x1f\x8b"
_PICKLE = b"MOCKSNAP\n"  # the header of the files of mockserver 0.x before the data format


# format N -> N + 1, applied in turn to the parsed file before it is read: when the state
# changes shape, FORMAT goes up by one and MIGRATIONS[FORMAT - 1] rewrites a file of the format
# before (docs/reference/snapshot-format.md says how).
def _accounts_of_their_own(parsed: dict[str, Any]) -> dict[str, Any]:
    """Format 1 -> 2: account sandboxes (`state.account_sandboxes`, none in a format 1 file)
    and the account of each journal entry (none: the server's sandbox answered them all)."""
    state = parsed.get("state")
    if type(state) is dict:
        state.setdefault("account_sandboxes", [])
        journal = state.get("journal")
        entries = journal.get("entries") if type(journal) is dict else None
        for entry in entries if type(entries) is list else []:
            if type(entry) is dict and entry.get("$") == "Entry":
                entry.setdefault("account", None)
    return parsed


def _transport_faults(parsed: dict[str, Any]) -> dict[str, Any]:
    """Format 2 -> 3: the transport fault, `committed` and chaos mark of each journal entry
    (none: there were no transport faults or chaos before)."""
    state = parsed.get("state")
    journal = state.get("journal") if type(state) is dict else None
    entries = journal.get("entries") if type(journal) is dict else None
    for entry in entries if type(entries) is list else []:
        if type(entry) is dict and entry.get("$") == "Entry":
            for name in ("fault", "committed", "chaos"):
                entry.setdefault(name, None)
    return parsed


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _accounts_of_their_own,
    2: _transport_faults,
    3: plain_streams,
}


def identity(sandbox: Parts) -> dict[str, Any]:
    """The fields that name the server a file was written by, in the file's order."""
    store = sandbox.store
    return {
        "format": FORMAT,
        "mockserver": __version__,
        "seed": seed_fingerprint(sandbox),
        "random_seed": store.random_seed,
        "start": store.start,
    }


def write(sandbox: Parts, created_at: int, state: dict[str, Any], **more: Any) -> bytes:
    """The bytes of a file of `state` (taken at mock time `created_at`)."""
    checksum = _checksum(created_at, state)
    fields = {**identity(sandbox), "created_at": created_at, "sha256": checksum}
    return orjson.dumps({**fields, "state": state, **more})


def _checksum(created_at: Any, state: Any) -> str:
    return hashlib.sha256(orjson.dumps([created_at, state])).hexdigest()


def parse(
    sandbox: Parts,
    data: bytes,
    *,
    checkpoint: bool = False,
    verified: bool = False,
    kept: bool = False,
) -> dict[str, Any]:
    """The parsed file, migrated to this format and checked to be this server's; its `state`
    is read apart (`state.read`). SnapshotError saying what is wrong. `verified`: bytes whose
    checksum was checked before (a named snapshot's, or part of a checked checkpoint). A file
    from outside is bounded by what it builds for its size; the server's own bytes (a
    checkpoint, a named snapshot it accepted: `verified` or `kept`) are not bounded again, since
    a gzipped upload is kept as compact JSON, the same values in fewer bytes."""
    own = checkpoint or verified or kept
    parsed = envelope(data, checkpoint=checkpoint, bounded=not own)
    for name, mine in identity(sandbox).items():
        if name in _UNCHECKED[sandbox.account is not None]:
            continue
        if parsed[name] != mine:
            raise SnapshotError(_MISMATCH[name].format(theirs=parsed[name], mine=mine))
    checksum = parsed.get("sha256")
    if (
        not verified
        and checksum is not None
        and checksum != _checksum(parsed["created_at"], parsed["state"])
    ):
        raise SnapshotError(DAMAGED)
    return parsed


def envelope(data: bytes, *, checkpoint: bool = False, bounded: bool = True) -> dict[str, Any]:
    """The parsed file, migrated to this format, its top level checked, but not yet against
    a server (`parse` does that): where the command line reads a file's settings from.
    `bounded`: refuse a file whose values would take far more memory than its size allows."""
    if not data:
        raise SnapshotError("The file is empty.")
    if data.startswith(_GZIP):
        data = _gunzip(data)
    if data.startswith(_PICKLE):
        raise SnapshotError(
            "The file is a snapshot of an earlier mockserver, whose format could run code when "
            "loaded and is no longer read. Take the snapshot again with this version."
        )
    if bounded:
        _check_size(data)
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        message = f"The file is not a mockserver snapshot: it is not JSON ({error})."
        raise SnapshotError(message) from None
    if type(parsed) is not dict or "format" not in parsed or "state" not in parsed:
        raise SnapshotError("The file is not a mockserver snapshot (no 'format' and 'state').")
    parsed = _migrated(parsed)
    expected = {"format", "mockserver", "seed", "random_seed", "start", "created_at", "state"}
    if checkpoint:
        expected.add("snapshots")
    if "sha256" in parsed:
        expected.add("sha256")
    if parsed.keys() != expected:
        odd = sorted(parsed.keys() ^ expected)
        raise SnapshotError(f"The file's top level does not have the snapshot's fields ({odd}).")
    for name in ("created_at", "random_seed", "start"):
        if type(parsed[name]) is not int:
            raise SnapshotError(f"The file's {name!r} must be a whole number.")
    try:
        TIME.decode(parsed["created_at"], Reader(None))
    except Invalid as error:
        error.path.append("created_at")
        raise refusal(error) from None
    return parsed


def _check_size(data: bytes) -> None:
    """Refuse JSON past MAX_BYTES, or whose values would take more memory than its size allows."""
    if len(data) > MAX_BYTES:
        raise SnapshotError(f"The file holds more than {MAX_BYTES >> 20} MiB of JSON.")
    if json_cost.estimate(data) > max(COST_FLOOR, COST_PER_BYTE * len(data)):
        raise SnapshotError(
            "The file is not a mockserver snapshot: it holds far more small values for its "
            f"size than a snapshot does (reading it would take more than {COST_PER_BYTE} times "
            "its size in memory)."
        )


def _migrated(parsed: dict[str, Any]) -> dict[str, Any]:
    version = parsed["format"]
    if type(version) is not int or version < 1:
        raise SnapshotError(f"The file's format {version!r} is not a snapshot format.")
    if version > FORMAT:
        raise SnapshotError(
            f"The file is in snapshot format {version}, from a later mockserver; this server "
            f"reads formats 1 to {FORMAT}."
        )
    if version == FORMAT:
        return parsed
    checksum = parsed.get("sha256")
    if checksum is not None:  # checked as written, then worked out again for the new state
        if checksum != _checksum(parsed.get("created_at"), parsed.get("state")):
            raise SnapshotError(DAMAGED)
    while version < FORMAT:
        parsed = MIGRATIONS[version](parsed)
        version = parsed["format"] = version + 1
    if checksum is not None:
        parsed["sha256"] = _checksum(parsed.get("created_at"), parsed.get("state"))
    return parsed


def _gunzip(data: bytes) -> bytes:
    """The decompressed bytes, at most MAX_BYTES + 1 of them (a bomb stops there)."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflate.decompress(data, MAX_BYTES + 1)
    except zlib.error as error:
        raise SnapshotError(f"The file is damaged: it is not valid gzip ({error}).") from None
    if len(out) > MAX_BYTES:
        raise SnapshotError(f"The file holds more than {MAX_BYTES >> 20} MiB of JSON.")
    if not inflate.eof:
        raise SnapshotError("The file is damaged: its gzip data ends early.")
    return out


def refusal(error: Invalid) -> SnapshotError:
    """The SnapshotError of a state that does not read, saying where."""
    return SnapshotError(f"The snapshot is not valid at {error.where()}: {error.message}.")


# The header fields a file need not share with the sandbox it is read into: who wrote it; and
# for an account's sandbox, `start` too. That is when the account's sandbox was built (its
# creation, or a restart or a server's restore that built it again), and its seed (the account
# as created) has no times shifted from it, so a file of that account reads whenever the
# sandbox was built; whose the file is, the seed (`account <id>`) and the state's accounts say.
_UNCHECKED = {False: {"mockserver"}, True: {"mockserver", "start"}}
_MISMATCH = {
    "format": "The file is in snapshot format {theirs}; this server reads {mine}.",
    "seed": "The snapshot was taken on another seed than this server's.",
    "random_seed": "The snapshot was taken with --random-seed {theirs}; this server uses {mine}.",
    "start": "The snapshot was taken on a server that started its clock at another time "
    "(--start-time) than this one.",
}


def seed_fingerprint(sandbox: Parts) -> str:
    """The sha256 of the seed file's bytes (of its name, for a seed made in memory); once."""
    found = sandbox.snapshots.seed_fingerprint
    if found is None:
        source = sandbox.store.seed.source
        path = Path(source)
        raw = path.read_bytes() if path.is_file() else source.encode()
        found = sandbox.snapshots.seed_fingerprint = hashlib.sha256(raw).hexdigest()
    return found
