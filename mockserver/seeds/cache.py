"""A cache of validated seeds, so a large seed's later starts skip parsing and validation.

Parsing and validating a large seed takes seconds of CPU, and the result depends only on the
file's bytes and the code that reads it. So seeds of at least `MIN_BYTES` are written once
validated, as data (`cache_entries`: JSON, a column per field for the big lists), under
`$XDG_CACHE_HOME/mockserver` (or `~/.cache/mockserver`), keyed by the sha256 of the file's
text, the entry `FORMAT`, the mockserver, PyYAML (its `__init__.py`), orjson and Python
versions, and the source of the modules that read seeds and entries: any change to one of them
is a new key. The first start of a big seed still pays the full price (and the writing). The
packaged default seed is kept too, under entries of its own (`default-*`): parsing it is quick,
but every test session and server start that names no seed reads it, and a hit spares the
parse and validation (not PyYAML's import: the seed and scenario modules import it at their
top). A big seed's seeded audit histories are kept beside it (`history-*`).

An entry is data, never code: it is read into values, checked against the shape it must have,
and the seed is built by its own dataclasses; an entry that does not read, is not of that
shape, or is not of this format and key is a miss (then rewritten), never a crash. The
directory is made 0700 and used only if it belongs to this user and nobody else may write to
it, so no one else can plant an entry; entries are written to a temporary file and renamed;
only the `KEEP` newest entries of each kind are kept (entries of the earlier, pickled format
are removed). `MOCKSERVER_SEED_CACHE=0` turns the cache off.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import platform
import stat
import tempfile
from pathlib import Path
from typing import Any

import orjson

from mockserver.core.memory import collector_paused
from mockserver.core.shipped import default_seed_path
from mockserver.core.version import __version__
from mockserver.domain.models import SeedData
from mockserver.seeds import cache_entries

MIN_BYTES = 5_000_000  # smaller seeds load in well under a second: not worth a file
KEEP = 3  # entries of a kind kept, newest first: each big seed or code change adds one of ~50 MB
SEED = "seed"  # the kind of a big seed's entries, whose seeded histories are kept too
DEFAULT = "default"  # the packaged default seed's (about 40 kB; its histories are not kept)
FORMAT = 1  # the layout of an entry (`cache_entries`), written in it and part of its key
SUFFIX = ".json"
_MODULES = (
    "seeds/loader.py",
    "seeds/parser.py",
    "seeds/builder.py",
    "seeds/workflows.py",
    "seeds/validation.py",
    "seeds/yaml_lines.py",
    "seeds/cache.py",
    "seeds/cache_entries.py",
    "core/columns.py",
    "core/kinds.py",
    "core/containers.py",
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
    """A sha256 fed with the source of `modules`, the entry format and the versions the
    entries depend on."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    for name in modules:
        with contextlib.suppress(OSError):
            digest.update(name.encode() + b"\0" + (package / name).read_bytes() + b"\0")
    digest.update(b"yaml\0" + _yaml_init() + b"\0")
    versions = (__version__, orjson.__version__)
    digest.update(repr((versions, platform.python_version(), FORMAT)).encode())
    return digest


def _yaml_init() -> bytes:
    """PyYAML's `__init__.py`, which sets its version: read from the file rather than asked of
    its installed metadata, whose look-up leaves cyclic garbage every time."""
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
    return cache_dir() / f"{kind}-{digest.hexdigest()}{SUFFIX}"


def history_path(seed_digest: str, parts: tuple[object, ...]) -> Path:
    """Where a seeded history is cached: the seed's entry digest, what else the history
    depends on (`parts`: account, environment, shift, owner, reference time, random seed) and
    the code that makes and renders it."""
    digest = _code_digest(_MODULES + _HISTORY_MODULES)
    digest.update(f"{seed_digest}\0{parts!r}".encode())
    return cache_dir() / f"history-{digest.hexdigest()}{SUFFIX}"


def load(entry: Path, source: str) -> SeedData | None:
    """The cached seed, with `source` as its file name; None if absent or not a whole,
    well-formed entry."""
    with collector_paused():  # a million acyclic objects: see seeds.load_seed_text
        data = read(entry)
        try:
            seed = None if data is None else cache_entries.decode_seed(data, source)
        except Exception:  # a cache: whatever does not read is a miss, never a crash
            return None
    if seed is not None:
        seed.digest = _history_digest(entry)
    return seed


def store(entry: Path, seed: SeedData) -> None:
    """Write `seed` to `entry` (see `write`) and remember its digest for history entries."""
    seed.digest = _history_digest(entry)
    write(entry, cache_entries.encode_seed(seed))


def load_history(entry: Path, objects: int) -> cache_entries.Regions | None:
    """A seeded history kept at `entry` (see `cache_entries.decode_history`) for a seed of
    `objects` vaults and documents; None if absent or not a whole, well-formed entry. The
    caller pauses the collector (`SeededHistory.log`)."""
    data = read(entry)
    try:
        return None if data is None else cache_entries.decode_history(data, objects)
    except Exception:  # a miss, as in `load`
        return None


def store_history(entry: Path, regions: cache_entries.Regions) -> None:
    """Keep a seeded history at `entry` (see `write`)."""
    write(entry, cache_entries.encode_history(regions))


def _kind(entry: Path) -> str:
    return entry.name.split("-", 1)[0]


def _key(entry: Path) -> str:
    return entry.name.removesuffix(SUFFIX).split("-", 1)[-1]


def _history_digest(entry: Path) -> str | None:
    """What the seeded histories of the seed at `entry` are cached by: its digest for a big
    seed; None for the default seed, whose histories are made in milliseconds."""
    return _key(entry) if _kind(entry) == SEED else None


def read(entry: Path) -> Any:
    """What the entry at `entry` holds, as parsed JSON; None if absent, not JSON, not an
    entry of this `FORMAT`, kind and key, or not in a private dir."""
    if not _private(entry.parent):
        return None
    try:
        data = orjson.loads(entry.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if type(data) is not dict or data.keys() != {"format", "kind", "key", "entry"}:
        return None
    if (data["format"], data["kind"], data["key"]) != (FORMAT, _kind(entry), _key(entry)):
        return None
    return data["entry"]


def write(entry: Path, value: object) -> None:
    """Write `value` (JSON-ready data) to `entry` atomically, with the format, kind and key
    that `read` checks; a cache that cannot be written is no cache."""
    with collector_paused():
        _write(entry, value)


def _write(entry: Path, value: object) -> None:
    try:
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(entry.parent):
            return
        wrapped = {"format": FORMAT, "kind": _kind(entry), "key": _key(entry), "entry": value}
        data = orjson.dumps(wrapped)
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


def _prune(directory: Path, kind: str) -> None:
    """Remove all but the KEEP newest entries of a kind (`seed` or `history`), and those of
    the kind an earlier mockserver pickled, which no version reads any more."""
    entries = sorted(directory.glob(f"{kind}-*{SUFFIX}"), key=_modified, reverse=True)
    for old in [*entries[KEEP:], *directory.glob(f"{kind}-*.pickle")]:
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
