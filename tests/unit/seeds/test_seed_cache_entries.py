"""A seed cache entry is data, and a damaged or crafted one is a miss: one that is not JSON,
cut short, of another format, kind or key, or not the shape of a seed is ignored, the seed is
parsed again and the entry rewritten, and the server serves the seed's own data. Nothing is
pickled, and a pickle left by an earlier version is removed unread. Tests lower `MIN_BYTES` so
the shipped seed counts as big."""

from __future__ import annotations

import base64
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from mockserver.core.config import Settings
from mockserver.core.shipped import default_seed_path
from mockserver.seeds import cache as seed_cache
from mockserver.seeds import loader as seeds
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app

FULL = {"Authorization": "Bearer sk_test_mock_full"}
PAGES = (
    "/v1/documents?limit=100",
    "/v1/documents/doc_mock_signed",
    "/v1/vaults",
    "/eu/v1/documents",
)


def served(seed_path: Path | None = None) -> list[bytes]:
    """What an app started on the seed serves for its lists."""
    app = create_app(Settings(clock_mode="frozen", seed_path=seed_path))
    with inprocess_client(app, headers=FULL) as client:
        answers = [client.get(page) for page in PAGES]
    assert all(answer.status_code == 200 for answer in answers)
    return [answer.content for answer in answers]


@pytest.fixture
def seed_file(big_seed_cache: Path, tmp_path: Path) -> Path:
    path = tmp_path / "seed.yaml"
    path.write_text(default_seed_path().read_text(encoding="utf-8"), encoding="utf-8")
    return path


def edited(change: Callable[[Any], None]) -> Callable[[bytes], bytes]:
    """A damage that parses the entry, changes it in place and writes it back."""

    def damage(raw: bytes) -> bytes:
        data = orjson.loads(raw)
        change(data)
        return orjson.dumps(data)

    return damage


def documents(data: Any) -> dict[str, Any]:
    """The columns of the first environment's documents in a parsed seed entry."""
    ((_, environment), *_) = data["entry"]["environments"]
    columns: dict[str, Any] = environment["documents"]
    return columns


def codes_out_of_range(data: Any) -> None:
    """Regions coded 255, of the two there are (codes are one byte each, in base64)."""
    count = len(documents(data)["id"])
    documents(data)["region"]["codes"] = base64.b64encode(b"\xff" * count).decode()


def crafted_object(data: Any) -> None:
    documents(data)["title"] = [{"$": "Popen", "py/object": "subprocess.Popen", "args": ["id"]}]


DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "garbage": lambda raw: b"\x00\xffnot json",
    "truncated": lambda raw: raw[: len(raw) // 2],
    "not an object": lambda raw: b"[]",
    "a pickle": lambda raw: pickle.dumps({"format": seed_cache.FORMAT}),
    "another format": edited(lambda d: d.update(format=seed_cache.FORMAT + 1)),
    "another key": edited(lambda d: d.update(key="0" * 64)),
    "another kind": edited(lambda d: d.update(kind="history")),
    "no seed": edited(lambda d: d.update(entry={})),
    "a column missing": edited(lambda d: documents(d).pop("title")),
    "a column short": edited(lambda d: documents(d)["title"].pop()),
    "a value of the wrong type": edited(lambda d: documents(d)["created_at"].__setitem__(0, "x")),
    "a code out of range": edited(codes_out_of_range),
    "counts that do not add up": edited(lambda d: documents(d)["versions"]["counts"].append(1)),
    "an object naming a class": edited(crafted_object),
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_entry_is_a_miss_and_is_rewritten(
    seed_file: Path, big_seed_cache: Path, damage: Callable[[bytes], bytes]
) -> None:
    expected = served(seed_file)
    (entry,) = big_seed_cache.glob("seed-*")
    good = entry.read_bytes()
    entry.write_bytes(damage(good))
    assert seed_cache.load(entry, str(seed_file)) is None
    assert served(seed_file) == expected
    assert seed_cache.load(entry, str(seed_file)) == seeds.load_seed_text(
        seed_file.read_text(encoding="utf-8"), str(seed_file)
    )


def test_a_damaged_default_seed_entry_is_a_miss(seed_cache_home: Path) -> None:
    expected = served()
    (entry,) = seed_cache_home.glob("default-*")
    entry.write_bytes(entry.read_bytes()[:-100])
    assert served() == expected
    assert orjson.loads(entry.read_bytes())["format"] == seed_cache.FORMAT


def test_a_pickle_left_by_an_earlier_version_is_removed_unread(
    seed_file: Path, big_seed_cache: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    big_seed_cache.mkdir(mode=0o700, parents=True)
    digest = seed_cache.entry_path(seed_file.read_text(encoding="utf-8")).stem.split("-", 1)[1]
    planted = big_seed_cache / f"seed-{digest}.pickle"
    planted.write_bytes(pickle.dumps(_Opens(marker)))  # loading it would create `marker`
    expected = seeds.load_seed_text(seed_file.read_text(encoding="utf-8"), str(seed_file))
    assert seeds.load_seed(seed_file) == expected
    assert not marker.exists()
    assert not planted.exists()
    assert [entry.suffix for entry in big_seed_cache.iterdir()] == [".json"]


class _Opens:
    """What a pickle runs when loaded: here, opening (creating) a file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return open, (str(self.path), "w")


# A fresh interpreter whose pickle functions refuse to run (httpx may import pickle with its
# optional command-line extras, so whether the module is loaded says nothing): the default seed
# and a big one (with its seeded history), each read once into the cache and once from it.
NO_PICKLE = """
import asyncio, pickle, sys
from pathlib import Path

# Imported first: a library that subclasses pickle's classes at import (multiprocessing, which
# watchfiles imports) is not what this looks for; building a sandbox and serving it is.
from mockserver import Request, Sandbox, Settings
from mockserver.seeds import cache

used = []


def refuse(name):
    def call(*args, **kwargs):
        used.append(name)
        raise AssertionError("pickle." + name)
    return call


for name in ("dump", "dumps", "load", "loads", "Pickler", "Unpickler"):
    setattr(pickle, name, refuse(name))

for seed_path, least in ((None, cache.MIN_BYTES), (Path(sys.argv[1]), 0)) * 2:
    cache.MIN_BYTES = least  # the file counts as a big seed
    sandbox = Sandbox.build(Settings(clock_mode="frozen", seed_path=seed_path))
    headers = [("authorization", "Bearer sk_test_mock_full")]
    answer = asyncio.run(sandbox.handle(Request("GET", "/v1/audit_logs", headers=headers)))
    assert answer.status == 200
print(used or "none")
"""


def test_nothing_is_pickled_and_every_entry_is_json(seed_file: Path, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "fresh")}
    env.pop("MOCKSERVER_SEED_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", NO_PICKLE, str(seed_file)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    assert done.stdout.split() == ["none"]
    entries = sorted((tmp_path / "fresh" / "mockserver").iterdir())
    assert {entry.name.split("-")[0] for entry in entries} == {"default", "history", "seed"}
    for entry in entries:
        assert entry.suffix == ".json"
        assert orjson.loads(entry.read_bytes())["format"] == seed_cache.FORMAT
