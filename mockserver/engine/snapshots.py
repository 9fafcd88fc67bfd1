"""Snapshots: the whole state of a sandbox as bytes, and back.

A snapshot is one pickle of everything a sandbox has become since its seed: every world (its
objects, indexes, audit chains and exports), the credentials and accounts, the clock and every
pending timer (locks, exports, webhook attempts, scenario timelines), OAuth codes and tokens,
idempotency records, rate windows, the seeded id streams, the loaded scenarios with their
counters, webhook endpoints, queues and deliveries, and the request journal. Timers are plain
objects (`LockTimer`, `AttemptTimer`, ...), not closures, so they are saved with the objects
they act on.

What is not state is written as a reference (pickle's persistent ids) and resolved to the
loading sandbox's own: its structure (the store, scheduler, clock and engines that everything
else points at), and what never changes once built (the seed, the seeded objects worlds share
until they change one, the seeded audit histories). So a snapshot holds what changed, a
restore puts the saved objects back into the running sandbox in place, and a world the seed
built costs a snapshot only its indexes. Restoring unpickles a new copy each time: the saved
bytes are never changed, so one snapshot can be restored any number of times.

The file format (`snapshot_file`) wraps these bytes with a versioned header and a checksum;
loading a file goes through `RestrictedUnpickler`, which builds only mockserver's own classes
and a few plain standard-library types.
"""

from __future__ import annotations

import contextlib
import gc
import io
import pickle
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mockserver.audit.chain import EMPTY_LOG
from mockserver.core.clock import format_ts
from mockserver.core.errors import NotFound, SnapshotError, ValidationError
from mockserver.domain.models import Document, Vault, Workflow
from mockserver.domain.store import RegionData
from mockserver.engine import snapshot_file, snapshot_indexes
from mockserver.seeds.history import SeededHistory
from mockserver.seeds.world import pristine_of, seeded_history

if TYPE_CHECKING:
    from mockserver.engine.sandbox import Sandbox

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
PROTOCOL = 5
_SEEDED_TYPES = (Document, Vault, Workflow)

# Standard-library globals a snapshot may name, besides mockserver's own classes.
_SAFE_GLOBALS = frozenset(
    {
        ("builtins", "set"),
        ("builtins", "frozenset"),
        ("builtins", "bytearray"),
        ("collections", "deque"),
        ("collections", "OrderedDict"),
        ("random", "Random"),
        ("copyreg", "_reconstructor"),
        ("builtins", "object"),
    }
)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One named snapshot: its state bytes, when (on the mock clock) it was taken, its file's
    header, and whether it came from outside (an upload: restored only into mockserver's own
    classes)."""

    name: str
    created_at: int
    data: bytes
    header: bytes
    uploaded: bool = False

    @property
    def size(self) -> int:
        """The bytes of its file (`download`)."""
        return len(self.header) + len(self.data)

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "created_at": format_ts(self.created_at), "bytes": self.size}


@dataclass(slots=True)
class Snapshots:
    """The named snapshots of a sandbox (kept by a reset) and the reference tables of its
    shared seeded objects (built once: those objects never change)."""

    named: dict[str, Snapshot] = field(default_factory=dict)
    seeded_refs: dict[tuple[str, str], dict[int, tuple[Any, ...]]] = field(default_factory=dict)
    seed_fingerprint: str | None = None  # see `snapshot_file.seed_fingerprint`


def check_name(name: Any) -> str:
    """A snapshot name: 1 to 64 letters, digits, `_`, `-` or `.`; else 422 on `name`."""
    if not isinstance(name, str) or NAME.fullmatch(name) is None:
        raise ValidationError(
            "'name' must be 1 to 64 letters, digits, '_', '-' or '.'.", param="name"
        )
    return name


def find(sandbox: Sandbox, name: str) -> Snapshot:
    """The snapshot called `name`; 404 if there is none."""
    snapshot = sandbox.snapshots.named.get(name)
    if snapshot is None:
        raise NotFound(f"No such snapshot: '{name}'.", param="name")
    return snapshot


def take(sandbox: Sandbox, name: str) -> Snapshot:
    """Save the sandbox as `name` (replacing a snapshot of that name); call with no
    background work running."""
    created_at = sandbox.store.now()
    state = capture(sandbox)
    header = snapshot_file.header(sandbox, created_at, state)
    snapshot = sandbox.snapshots.named[name] = Snapshot(name, created_at, state, header)
    return snapshot


def put_back(sandbox: Sandbox, snapshot: Snapshot) -> None:
    """Restore a named snapshot."""
    restore(sandbox, snapshot.data, restricted=snapshot.uploaded)


def add_file(sandbox: Sandbox, name: str, data: bytes) -> Snapshot:
    """Add an uploaded snapshot file as `name`: checked (header, identity, checksum) and read
    in full, into mockserver's own classes only, before it is kept; SnapshotError else."""
    created_at, state = snapshot_file.decode(sandbox, data)
    _load(sandbox, state, restricted=True)  # read, not applied: a file that loads is kept
    header = data[: len(data) - len(state)]
    snapshot = Snapshot(name, created_at, state, header, uploaded=True)
    sandbox.snapshots.named[name] = snapshot
    return snapshot


def checkpoint(sandbox: Sandbox) -> bytes:
    """The whole sandbox and its named snapshots as one file (what a state directory keeps):
    call with no background work running."""
    named = [
        (s.name, s.created_at, s.data, s.header, s.uploaded)
        for s in sandbox.snapshots.named.values()
    ]
    state = pickle.dumps((capture(sandbox), named), protocol=PROTOCOL)
    return snapshot_file.header(sandbox, sandbox.store.now(), state) + state


def load_checkpoint(sandbox: Sandbox, data: bytes) -> None:
    """Put back what `checkpoint` wrote (SnapshotError if it cannot be loaded here)."""
    _, payload = snapshot_file.decode(sandbox, data)
    try:
        state, named = _Unpickler(io.BytesIO(payload), sandbox, restricted=True).load()
        snapshots = [Snapshot(*fields) for fields in named]
    except SnapshotError:
        raise
    except Exception as error:
        raise SnapshotError(f"The checkpoint cannot be read: {error}.") from None
    restore(sandbox, state, restricted=True)
    sandbox.snapshots.named = {s.name: s for s in snapshots}


def listing(sandbox: Sandbox) -> Iterable[Snapshot]:
    """The named snapshots, oldest saved first."""
    return list(sandbox.snapshots.named.values())


# -- capture -------------------------------------------------------------------------------


def capture(sandbox: Sandbox) -> bytes:
    """The sandbox's whole state as bytes (call with no background work running)."""
    buffer = io.BytesIO()
    with _collector_paused():
        _Pickler(buffer, _references(sandbox), _seeded_refs(sandbox)).dump(_state(sandbox))
    return buffer.getvalue()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a snapshot is written or read: hundreds of
    thousands of new objects would set off full collections of a large heap, in vain."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _state(sandbox: Sandbox) -> dict[str, Any]:
    store, webhooks, scenarios = sandbox.store, sandbox.webhooks, sandbox.scenarios
    timers, order = store.scheduler.saved()
    return {
        "clock": store.clock.saved(),
        "timers": timers,
        "order": order,
        "accounts": store.accounts,
        "keys": store.keys,
        "worlds": store.worlds,
        "export_worlds": store.export_worlds,
        "oauth": store.oauth,
        "request_ids": store.request_ids,
        "rate_limits": _slots(store.rate_limits, ("_anonymous", "_sweep_above", "_windows")),
        "idempotency": _slots(store.idempotency, ("_generation", "_kept", "_records")),
        "account_ids": sandbox.accounts.ids,
        "webhooks": _slots(webhooks, ("books", "journal", "_generation", "_delayed")),
        "scenarios": _slots(scenarios, _SCENARIO_FIELDS),
        "journal": _slots(sandbox.journal, ("_entries", "_seq")),
    }


_SCENARIO_FIELDS = (
    "loaded",
    "rules",
    "bursts",
    "faults",
    "deprecations",
    "pending_webhooks",
    "timeline_errors",
    "active",
    "needs_body",
)


def _slots(obj: object, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in names}


def _references(sandbox: Sandbox) -> dict[int, tuple[Any, ...]]:
    """id(object) -> reference, for every object written as a reference but the seeded
    documents, vaults and workflows (`_seeded_refs`)."""
    store = sandbox.store
    refs: dict[int, tuple[Any, ...]] = {
        id(store): ("store",),
        id(store.scheduler): ("scheduler",),
        id(store.clock): ("clock",),
        id(store.listeners): ("listeners",),
        id(store.seed): ("seed",),
        id(sandbox.webhooks): ("webhooks",),
        id(sandbox.scenarios): ("scenarios",),
        id(sandbox.journal): ("journal",),
        id(EMPTY_LOG): ("empty-log",),
    }
    for key, pristine in store.pristine.items():
        refs[id(pristine)] = ("pristine", *key)
    for key, history in store.history_cache.items():
        made = (history.owner, history.reference)
        refs[id(history)] = ("history", *key, *made)
        for region, log in history.built_logs().items():
            refs[id(log)] = ("seeded-log", *key, *made, region)
    for key, world in store.worlds.items():
        refs.update(snapshot_indexes.patches(key, world))
    return refs


def _seeded_refs(sandbox: Sandbox) -> dict[int, tuple[Any, ...]]:
    """id(object) -> reference for every seeded document, vault and workflow of the worlds
    built so far (made once per (account, environment): they never change)."""
    tables = sandbox.snapshots.seeded_refs
    merged: dict[int, tuple[Any, ...]] = {}
    for key, pristine in sandbox.store.pristine.items():
        table = tables.get(key)
        if table is None:
            table = tables[key] = {}
            for region, data in pristine.regions.items():
                for vault in data.vaults.values():
                    table[id(vault)] = ("vault", *key, region, vault.id)
                for doc in data.doc_order:
                    table[id(doc)] = ("document", *key, region, doc.id)
                for workflow in data.workflows.values():
                    table[id(workflow)] = ("workflow", *key, region, workflow.id)
        merged.update(table)
    return merged


class _Pickler(pickle.Pickler):
    """Writes structure and seeded objects as references (see the module's docstring)."""

    def __init__(
        self,
        file: io.BytesIO,
        refs: dict[int, tuple[Any, ...]],
        seeded: dict[int, tuple[Any, ...]],
    ) -> None:
        super().__init__(file, protocol=PROTOCOL)
        self._refs = refs
        self._seeded = seeded

    def persistent_id(self, obj: Any) -> Any:
        ref = self._refs.get(id(obj))
        if ref is None and type(obj) in _SEEDED_TYPES:
            ref = self._seeded.get(id(obj))
        return ref


# -- restore -------------------------------------------------------------------------------


def restore(sandbox: Sandbox, data: bytes, *, restricted: bool = False) -> None:
    """Put the sandbox back as `capture` saw it. The bytes are read in full before anything
    changes, so bytes that cannot be read (SnapshotError) leave the sandbox as it was.
    `restricted`: bytes from outside this process (an uploaded file) may name only
    mockserver's own classes."""
    _apply(sandbox, _load(sandbox, data, restricted=restricted))


def _load(sandbox: Sandbox, data: bytes, *, restricted: bool) -> dict[str, Any]:
    """The state in `data`, as new objects tied to this sandbox; SnapshotError if unreadable."""
    unpickler = _Unpickler(io.BytesIO(data), sandbox, restricted=restricted)
    try:
        with _collector_paused():
            state = unpickler.load()
    except SnapshotError:
        raise
    except Exception as error:  # a damaged or foreign pickle fails in many ways
        raise SnapshotError(f"The snapshot cannot be read: {error}.") from None
    if not isinstance(state, dict) or set(state) != _KEYS:
        raise SnapshotError("The snapshot does not hold a sandbox's state.")
    return state


_KEYS = frozenset(
    {
        "clock",
        "timers",
        "order",
        "accounts",
        "keys",
        "worlds",
        "export_worlds",
        "oauth",
        "request_ids",
        "rate_limits",
        "idempotency",
        "account_ids",
        "webhooks",
        "scenarios",
        "journal",
    }
)


def _apply(sandbox: Sandbox, state: dict[str, Any]) -> None:
    store = sandbox.store
    store.scheduler.restore(state["timers"], state["order"])  # cancels work in flight
    store.clock.restore(state["clock"])
    store.accounts = state["accounts"]
    store.keys = state["keys"]
    store.worlds = state["worlds"]
    store.kept = {}  # worlds a reset kept as built: the next first use builds them again
    store.export_worlds = state["export_worlds"]
    store.oauth = state["oauth"]
    store.request_ids = state["request_ids"]
    sandbox.accounts.ids = state["account_ids"]
    for target, name in (
        (store.rate_limits, "rate_limits"),
        (store.idempotency, "idempotency"),
        (sandbox.webhooks, "webhooks"),
        (sandbox.scenarios, "scenarios"),
        (sandbox.journal, "journal"),
    ):
        for attribute, value in state[name].items():
            setattr(target, attribute, value)


class _Unpickler(pickle.Unpickler):
    """Resolves references to this sandbox's objects; `restricted`: builds only mockserver's
    own classes and a few plain standard-library types."""

    def __init__(self, file: io.BytesIO, sandbox: Sandbox, *, restricted: bool) -> None:
        super().__init__(file)
        self._sandbox = sandbox
        self._restricted = restricted
        self._structure = _structure(sandbox)
        self._regions: dict[tuple[str, str, str], RegionData] = {}
        self._histories: dict[tuple[str, str, str, int], SeededHistory] = {}

    def find_class(self, module: str, name: str) -> Any:
        if not self._restricted:
            return super().find_class(module, name)
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        if module.startswith("mockserver.") and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise SnapshotError(f"The snapshot names '{module}.{name}', which no snapshot holds.")

    def persistent_load(self, pid: Any) -> Any:
        try:
            kind = pid[0]
            if kind == "document":  # by far the most common: a seeded document in an index
                return self._region(pid).documents[pid[4]]
            found = self._structure.get(kind)
            if found is not None:
                return found
            return self._resolve(kind, pid)
        except (KeyError, IndexError, TypeError, ValueError):
            raise SnapshotError(
                f"The snapshot refers to {pid!r}, which this server's seed does not have."
            ) from None

    def _region(self, pid: tuple[Any, ...]) -> RegionData:
        """The seeded region of a reference (account, environment, region at 1..3)."""
        key = (pid[1], pid[2], pid[3])
        region = self._regions.get(key)
        if region is None:
            pristine = pristine_of(self._sandbox.store, (pid[1], pid[2]))
            region = self._regions[key] = pristine.regions[pid[3]]
        return region

    def _history(self, pid: tuple[Any, ...]) -> SeededHistory:
        """The seeded history a reference names (account, environment, owner, reference
        time at 1..4), the same object for every reference to it."""
        key = (pid[1], pid[2], pid[3], pid[4])
        history = self._histories.get(key)
        if history is None:
            made = seeded_history(self._sandbox.store, (pid[1], pid[2]), pid[3], pid[4])
            history = self._histories[key] = made
        return history

    def _resolve(self, kind: str, pid: tuple[Any, ...]) -> Any:
        store = self._sandbox.store
        if kind == "pristine":
            return pristine_of(store, (pid[1], pid[2]))
        if kind == "history":
            return self._history(pid)
        if kind == "seeded-log":
            return self._history(pid).log(pid[5])
        if kind in _INDEXES:
            return snapshot_indexes.build(pid, pristine_of(store, (pid[1], pid[2])))
        if kind == "vault":
            return self._region(pid).vaults[pid[4]]
        if kind == "workflow":
            return self._region(pid).workflows[pid[4]]
        raise ValueError(kind)


_INDEXES = frozenset({"dict", "list", "sharded", "by-vault", "active"})


def _structure(sandbox: Sandbox) -> dict[str, Any]:
    """The sandbox's own objects that structure references stand for."""
    store = sandbox.store
    return {
        "store": store,
        "scheduler": store.scheduler,
        "clock": store.clock,
        "listeners": store.listeners,
        "seed": store.seed,
        "webhooks": sandbox.webhooks,
        "scenarios": sandbox.scenarios,
        "journal": sandbox.journal,
        "empty-log": EMPTY_LOG,
    }
