"""Snapshots: the whole state of a sandbox as a JSON file, and back.

A snapshot is data (`file`: the envelope; `state`: what it holds; `worlds`: the seed's share
written as references; `records`: the allow-list of records and their fields). Saving writes
the file's bytes once; restoring reads them into new objects, checking every field, and only
then swaps them in, so a file that does not read changes nothing, and one snapshot can be
restored any number of times. The same state gives the same bytes.

The limits on named snapshots are the server's: its own and every account sandbox's count
together (`check_room`), and a state directory's checkpoint holds them all (`checkpoint`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from mockserver.core.errors import Conflict, NotFound, SnapshotError, ValidationError
from mockserver.core.kinds import Invalid
from mockserver.core.memory import collector_paused
from mockserver.engine.named_snapshots import Snapshot, Snapshots
from mockserver.engine.parts import Parts
from mockserver.engine.snapshots import file, state

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
# What a server keeps at most, its own named snapshots and its account sandboxes' together:
MAX_NAMED = 64  # named snapshots
MAX_KEPT_BYTES = 1 << 30  # bytes of their files
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
    """409 if keeping a file of `size` bytes as `name` in `sandbox` would pass a limit of its
    server: the number of named snapshots or the bytes of their files, the server's own and
    every account sandbox's together (a snapshot of that name in `sandbox` is replaced: it
    does not count)."""
    mine = sandbox.snapshots
    others = [
        snapshot
        for shelf in _shelves(sandbox)
        for snapshot in shelf.named.values()
        if shelf is not mine or snapshot.name != name
    ]
    if len(others) >= MAX_NAMED:
        raise Conflict(
            f"The server keeps {MAX_NAMED} named snapshots, the most it may (its own and its "
            "account sandboxes' together): delete one first, or save over one of their names.",
            param="name",
        )
    kept = sum(s.size for s in others)
    if kept + size > MAX_KEPT_BYTES:
        raise Conflict(
            f"The snapshot ({size:,} bytes) would take the server's snapshot files past "
            f"{MAX_KEPT_BYTES:,} bytes, the most it keeps for itself and its account "
            f"sandboxes together ({kept:,} are kept): delete one first.",
            param="name",
        )


def shelves(server: Parts) -> list[Snapshots]:
    """The named snapshots of a server: its own, then each account sandbox's (an account's
    removed since is gone, with its snapshots)."""
    return [server.snapshots, *(tenant.sandbox.snapshots for tenant in server.tenants or ())]


def _shelves(sandbox: Parts) -> Iterator[Snapshots]:
    """The named snapshots of `sandbox`'s server (`shelves`); `sandbox`'s in any case."""
    mine = sandbox.snapshots
    found = shelves(sandbox) if mine.server is None else mine.server()
    yield from found
    if not any(shelf is mine for shelf in found):
        yield mine


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
    the server's as `{"name", "file"}`, then each account sandbox's as
    `{"account", "name", "file"}`. Call with no background work running."""
    named: list[dict[str, Any]] = [
        {"name": s.name, "file": orjson.Fragment(s.data)} for s in sandbox.snapshots.named.values()
    ]
    for tenant in sandbox.tenants or ():
        named.extend(
            {"account": tenant.id, "name": s.name, "file": orjson.Fragment(s.data)}
            for s in tenant.sandbox.snapshots.named.values()
        )
    with collector_paused():
        captured = state.capture(sandbox)
    return file.write(sandbox, sandbox.store.now(), captured, snapshots=named)


def load_checkpoint(sandbox: Parts, data: bytes) -> None:
    """Put back what `checkpoint` wrote (SnapshotError if it cannot be loaded here, and nothing
    changed). The named snapshots in it are checked to be this server's, or the account
    sandbox's they are listed for (a checkpoint of an earlier mockserver lists the server's only);
    each is read in full when restored."""
    with collector_paused():
        parsed = file.parse(sandbox, data, checkpoint=True)
        read = _read(sandbox, parsed)
    tenants = {tenant.id: tenant.sandbox for tenant, _ in read["account_sandboxes"]}
    named: dict[str | None, dict[str, Snapshot]] = {}
    listed = parsed["snapshots"]
    if type(listed) is not list:
        raise SnapshotError("The checkpoint's 'snapshots' must be a list.")
    for item in listed:
        if type(item) is not dict or item.keys() - {"account"} != {"name", "file"}:
            raise SnapshotError(
                "A snapshot of the checkpoint must be an object of name, file (and account, "
                "for an account sandbox's)."
            )
        owner: Parts | None = sandbox
        account = None
        if "account" in item:
            account = item["account"]
            owner = tenants.get(account) if type(account) is str else None
        if owner is None:
            raise SnapshotError(
                f"A snapshot of the checkpoint is of account {str(account)[:64]!r}, which has "
                "no sandbox in it."
            )
        name = item["name"]
        if type(name) is not str or NAME.fullmatch(name) is None:
            raise SnapshotError(f"A snapshot of the checkpoint has no valid name ({name!r:.70}).")
        data = orjson.dumps(item["file"])
        inner = file.parse(owner, data, kept=True)
        named.setdefault(account, {})[name] = Snapshot(name, inner["created_at"], data)
    state.apply(sandbox, read)
    sandbox.snapshots.named = named.get(None, {})
    for account, tenant in tenants.items():
        tenant.snapshots.named = named.get(account, {})


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
    "shelves",
    "take",
]
