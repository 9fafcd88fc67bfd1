"""A cache of validated seeds, so a large seed's later starts skip parsing and validation.

Parsing and validating a large seed takes seconds of CPU, and the result depends only on the
file's bytes and the code that reads it. So seeds of at least `MIN_BYTES` are pickled once
validated, under `$XDG_CACHE_HOME/mockserver` (or `~/.cache/mockserver`), keyed by the sha256
of the file's text, the mockserver, PyYAML (its `__init__.py`), orjson and Python versions,
and the source of the modules that read seeds: any change to one of them is a new key. The
first start of a big seed still pays the full price (and the pickling). The packaged default
seed is kept too, under entries of its own (`default-*`): parsing it is quick, but every test
session and server start that names no seed reads it, and from the cache without importing
YAML. The directory is made 0700 and used only if it belongs to this user and nobody else may
write to it (a pickle runs code when loaded); entries are written to a temporary file and
renamed, and one that cannot be read is ignored (then rewritten); only the `KEEP` newest
entries of each kind are kept. `MOCKSERVER_SEED_CACHE=0` turns the cache off.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import importlib.util
import os
import pickle
import platform
import stat
import tempfile
from pathlib import Path
from typing import Any

import orjson

import mockserver
from mockserver.core.resources import default_seed_path
from mockserver.domain.models import EnvironmentSeed, SeedData

MIN_BYTES = 5_000_000  # smaller seeds load in well under a second: not worth a file
KEEP = 3  # entries of a kind kept, newest first: each big seed or code change adds one of ~50 MB
SEED = "seed"  # the kind of a big seed's entries, whose seeded histories are kept too
DEFAULT = "default"  # the packaged default seed's (about 40 kB; its histories are not kept)
_MODULES = (
    "seeds/loader.py",
    "seeds/parser.py",
    "seeds/builder.py",
    "seeds/workflows.py",
    "seeds/validation.py",
    "seeds/yaml_lines.py",
    "seeds/cache.py",
    "core/clock.py",
    "core/config.py",
    "core/errors.py",
    "domain/models.py",
    "domain/conditions.py",
    "domain/webhook_rules.py",
)
# What a seeded history's columns and hashes depend on, besides the seed.
_HISTORY_MODULES = (
    "core/ids.py",
    "seeds/history.py",
    "audit/log.py",
    "domain/views.py",
    "domain/documents.py",
)


def kind_of(text: str, path: Path) -> str | None:
    """The kind of entry a seed of this text, read from `path`, is cached as: SEED for a big
    one, DEFAULT for the packaged default seed; None if it is neither, or the cache is off."""
    if not switched_on():
        return None
    if len(text) >= MIN_BYTES:
        return SEED
    return DEFAULT if path == default_seed_path() else None


def switched_on() -> bool:
    """Whether the cache is on (`MOCKSERVER_SEED_CACHE` is not 0)."""
    return os.environ.get("MOCKSERVER_SEED_CACHE", "1") != "0"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mockserver"


def _code_digest(modules: tuple[str, ...]) -> hashlib._Hash:
    """A sha256 fed with the source of `modules` and the versions the pickles depend on."""
    digest = hashlib.sha256()
    package = Path(mockserver.__file__).parent
    for name in modules:
        with contextlib.suppress(OSError):
            digest.update(name.encode() + b"\0" + (package / name).read_bytes() + b"\0")
    digest.update(b"yaml\0" + _yaml_init() + b"\0")
    versions = (mockserver.__version__, orjson.__version__)
    digest.update(repr((versions, platform.python_version(), pickle.HIGHEST_PROTOCOL)).encode())
    return digest


def _yaml_init() -> bytes:
    """PyYAML's `__init__.py`, which sets its version: read rather than imported, so that a
    cache hit does not import YAML (its installed metadata would, unlike this, leave cyclic
    garbage at every look-up)."""
    spec = importlib.util.find_spec("yaml")
    if spec is None or spec.origin is None:
        return b""
    try:
        return Path(spec.origin).read_bytes()
    except OSError:
        return b""


def entry_path(text: str, kind: str = SEED) -> Path:
    """Where the SeedData of `text` is cached as an entry of `kind`, for this code and these
    versions."""
    digest = _code_digest(_MODULES)
    digest.update(text.encode("utf-8", "surrogatepass"))
    return cache_dir() / f"{kind}-{digest.hexdigest()}.pickle"


def history_path(seed_digest: str, parts: tuple[object, ...]) -> Path:
    """Where a seeded history is cached: the seed's entry digest, what else the history
    depends on (`parts`: account, environment, shift, owner, reference time, random seed) and
    the code that makes and renders it."""
    digest = _code_digest(_MODULES + _HISTORY_MODULES)
    digest.update(f"{seed_digest}\0{parts!r}".encode())
    return cache_dir() / f"history-{digest.hexdigest()}.pickle"


def load(entry: Path, source: str) -> SeedData | None:
    """The cached seed, with `source` as its file name; None if absent or unreadable."""
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a million acyclic objects: see seeds.load_seed_text
    try:
        stored = read(entry)
        seed = _unpack(stored) if _kind(entry) == SEED else stored
    except Exception:
        return None
    finally:
        if gc_was_enabled:
            gc.enable()
    if type(seed) is not SeedData:
        return None
    seed.source = source
    seed.digest = _history_digest(entry)
    return seed


def store(entry: Path, seed: SeedData) -> None:
    """Write `seed` to `entry` (see `write`) and remember its digest for history entries. A
    big seed goes in chunks (see `_pack`); the default seed in one pickle, which keeps every
    object it shares (a string it repeats) one object."""
    seed.digest = _history_digest(entry)
    write(entry, _pack(seed) if _kind(entry) == SEED else seed)


def _kind(entry: Path) -> str:
    return entry.name.split("-", 1)[0]


def _history_digest(entry: Path) -> str | None:
    """What the seeded histories of the seed at `entry` are cached by: its digest for a big
    seed; None for the default seed, whose histories are made in milliseconds."""
    return entry.stem.removeprefix(f"{SEED}-") if _kind(entry) == SEED else None


# The seed is pickled as a skeleton (the SeedData without its vaults, documents and
# workflows) and those lists in chunks of CHUNK objects, each a pickle of its own. One pickle
# of the whole seed keeps a temporary per object (the list of its fields, which pickle
# memoizes) alive until the end, among the objects kept: freed at once, they leave holes
# that a large seed holds for good. Chunk by chunk, the next chunk reuses their room.
CHUNK = 1000
_KINDS = ("vaults", "documents", "workflows", "webhook_endpoints")
Packed = tuple[bytes, list[tuple[tuple[str, str], str, bytes]]]


def _pack(seed: SeedData) -> Packed:
    chunks = []
    skeleton = dataclasses.replace(seed, environments={})
    for key, env in seed.environments.items():
        skeleton.environments[key] = EnvironmentSeed()
        for kind in _KINDS:
            items = getattr(env, kind)
            for start in range(0, len(items), CHUNK):
                part = pickle.dumps(items[start : start + CHUNK], pickle.HIGHEST_PROTOCOL)
                chunks.append((key, kind, part))
    return pickle.dumps(skeleton, pickle.HIGHEST_PROTOCOL), chunks


def _unpack(packed: Packed) -> SeedData:
    skeleton, chunks = packed
    seed: SeedData = pickle.loads(skeleton)
    for key, kind, part in chunks:
        getattr(seed.environments[key], kind).extend(pickle.loads(part))
    return seed


def read(entry: Path) -> Any:
    """The object pickled at `entry`; None if absent, unreadable or not in a private dir.
    Callers pause the collector around it (`load`, `SeededHistory.log`)."""
    if not _private(entry.parent):
        return None
    try:
        return pickle.loads(entry.read_bytes())
    except Exception:
        return None


def write(entry: Path, value: object) -> None:
    """Pickle `value` to `entry` atomically; a cache that cannot be written is no cache."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(entry.parent):
            return
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        prefix = f".{_kind(entry)}-"
        handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=prefix, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, entry)
            _prune(entry.parent, _kind(entry))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError:
        return
    finally:
        if gc_was_enabled:
            gc.enable()


def _prune(directory: Path, kind: str) -> None:
    """Remove all but the KEEP newest entries of a kind (`seed` or `history`)."""
    entries = sorted(directory.glob(f"{kind}-*.pickle"), key=_modified, reverse=True)
    for old in entries[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _private(directory: Path) -> bool:
    """Whether `directory` is ours and nobody else may write to it."""
    try:
        info = directory.lstat()
    except OSError:
        return False
    owned = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISDIR(info.st_mode) and owned and not info.st_mode & 0o022
