"""A big seed's synthesized audit history is kept in the seed cache beside the seed: a later
run with the same seed, code, clock start and random seed reads it back instead of replaying
550,000 events, and serves exactly the bytes a replay gives. Tests lower `MIN_BYTES` so the
shipped seed counts as big."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from mockserver.core.config import Settings
from mockserver.core.shipped import default_seed_path
from mockserver.seeds import cache as seed_cache
from mockserver.seeds.history import SeededHistory
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app

FULL = {"Authorization": "Bearer sk_test_mock_full"}
NEW_DOCUMENT = {"title": "After the history", "vault_id": "vault_mock_us"}


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    path = tmp_path / "seed.yaml"
    path.write_text(default_seed_path().read_text(encoding="utf-8"), encoding="utf-8")
    return path


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many histories were synthesized (rather than read back), one entry each."""
    made: list[int] = []
    build = SeededHistory._build

    def counted(self: SeededHistory) -> Any:
        made.append(1)
        return build(self)

    monkeypatch.setattr(SeededHistory, "_build", counted)
    return made


def chains_then_a_write(path: Path, start_time: str | None = None) -> list[bytes]:
    """Every page of both regions' chains, then a write and the newest event (it links to
    the seeded head), as served."""
    settings = Settings(clock_mode="frozen", seed_path=path, start_time=start_time)
    with inprocess_client(create_app(settings), headers=FULL) as client:
        served = []
        for prefix in ("/us/v1", "/eu/v1"):
            url = f"{prefix}/audit_logs?limit=100"
            while True:
                page = client.get(url)
                assert page.status_code == 200
                served.append(page.content)
                if not page.json()["has_more"]:
                    break
                url = f"{prefix}/audit_logs?limit=100&cursor={page.json()['next_cursor']}"
        assert client.post("/v1/documents", json=NEW_DOCUMENT).status_code == 201
        served.append(client.get("/v1/audit_logs?limit=1").content)
        return served


def histories(directory: Path) -> list[Path]:
    return sorted(directory.glob(f"history-*{seed_cache.SUFFIX}"))


def test_a_kept_history_serves_the_bytes_of_a_replay(
    big_seed_cache: Path, seed_file: Path, replays: list[int]
) -> None:
    replayed = chains_then_a_write(seed_file)
    assert len(histories(big_seed_cache)) == 1
    assert len(replays) == 1  # the one seeded world this key reaches
    assert chains_then_a_write(seed_file) == replayed
    assert len(replays) == 1  # read back, not replayed


def test_another_clock_start_is_another_history(
    big_seed_cache: Path, seed_file: Path, monkeypatch: pytest.MonkeyPatch, replays: list[int]
) -> None:
    chains_then_a_write(seed_file)
    moved = chains_then_a_write(seed_file, start_time="2027-03-01T00:00:00Z")
    assert len(histories(big_seed_cache)) == 2
    assert len(replays) == 2
    monkeypatch.setenv("MOCKSERVER_SEED_CACHE", "0")
    assert chains_then_a_write(seed_file, start_time="2027-03-01T00:00:00Z") == moved


def sources_past_the_seed(raw: bytes) -> bytes:
    """The entry with each event's object numbered past the seed's objects."""
    data = orjson.loads(raw)
    for region in data["entry"].values():
        count = len(base64.b64decode(region["sources"])) // 4
        region["sources"] = base64.b64encode(b"\xff\xff\x00\x00" * count).decode()
    return orjson.dumps(data)


BROKEN: dict[str, Callable[[bytes], bytes]] = {
    "garbage": lambda raw: b"not json",
    "truncated": lambda raw: raw[: len(raw) // 2],
    "another format": lambda raw: raw.replace(b'"format":1', b'"format":2', 1),
    "sources past the seed": sources_past_the_seed,
}


@pytest.mark.parametrize("damage", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_entry_is_replayed_and_rewritten(
    big_seed_cache: Path, seed_file: Path, replays: list[int], damage: Callable[[bytes], bytes]
) -> None:
    replayed = chains_then_a_write(seed_file)
    (entry,) = histories(big_seed_cache)
    broken = damage(entry.read_bytes())
    entry.write_bytes(broken)
    assert chains_then_a_write(seed_file) == replayed
    assert len(replays) == 2
    assert entry.read_bytes() != broken
    assert chains_then_a_write(seed_file) == replayed
    assert len(replays) == 2  # the rewritten entry is read back


def test_a_changed_seed_does_not_read_the_old_history(
    big_seed_cache: Path, seed_file: Path, replays: list[int]
) -> None:
    chains_then_a_write(seed_file)
    text = seed_file.read_text(encoding="utf-8")
    seed_file.write_text(text.replace("Mock US Inc.", "Mock US Incorporated"), encoding="utf-8")
    chains_then_a_write(seed_file)
    assert len(replays) == 2
    assert len(histories(big_seed_cache)) == 2


def test_switched_off_nothing_is_kept(
    big_seed_cache: Path, seed_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOCKSERVER_SEED_CACHE", "0")
    chains_then_a_write(seed_file)
    chains_then_a_write(seed_file)
    assert not big_seed_cache.exists() or not histories(big_seed_cache)
