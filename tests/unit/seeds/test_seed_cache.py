"""The cache of validated big seeds: same seed, same bytes served, never stale, never trusted
blindly. Tests lower `MIN_BYTES` so the shipped seed counts as big."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mockserver.core.config import Settings
from mockserver.core.errors import SeedError
from mockserver.core.shipped import default_seed_path
from mockserver.domain.models import SeedData
from mockserver.seeds import cache as seed_cache
from mockserver.seeds import loader as seeds
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app


def seed_copy(tmp_path: Path, name: str = "seed.yaml") -> Path:
    path = tmp_path / name
    path.write_text(default_seed_path().read_text(encoding="utf-8"), encoding="utf-8")
    return path


def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(text: str, source: str) -> SeedData:
        raise AssertionError("the seed was parsed, not read from the cache")

    monkeypatch.setattr(seeds, "load_seed_text", fail)


def test_a_cached_seed_equals_the_parsed_one(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = seed_copy(tmp_path)
    parsed = seeds.load_seed_text(path.read_text(encoding="utf-8"), str(path))
    assert seeds.load_seed(path) == parsed
    assert [p.name.startswith("seed-") for p in big_seed_cache.iterdir()] == [True]
    assert stat.S_IMODE(big_seed_cache.stat().st_mode) == 0o700
    no_parsing(monkeypatch)
    renamed = path.rename(tmp_path / "renamed.yaml")
    cached = seeds.load_seed(renamed)
    assert cached == SeedData(**{**vars_of(parsed), "source": str(renamed)})
    assert cached.source == str(renamed)


def vars_of(seed: SeedData) -> dict[str, object]:
    return {name: getattr(seed, name) for name in SeedData.__dataclass_fields__}


def test_an_app_on_a_cached_seed_serves_the_same_bytes(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = seed_copy(tmp_path)
    bodies = []
    for _ in range(2):  # the first app parses and stores, the second reads the cache
        app = create_app(Settings(clock_mode="frozen", seed_path=path))
        with inprocess_client(app, headers={"Authorization": "Bearer sk_test_mock_full"}) as c:
            listing = c.get("/v1/documents?limit=100")
            first = listing.json()["data"][0]["id"]
            answers = [listing, c.get(f"/v1/documents/{first}"), c.get("/v1/workflows?limit=100")]
            answers.append(c.get("/v1/vaults"))
            bodies.append([(r.status_code, sorted(r.headers.items()), r.content) for r in answers])
        no_parsing(monkeypatch)
    assert bodies[0] == bodies[1]


def test_a_changed_file_is_parsed_again(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = seed_copy(tmp_path)
    seeds.load_seed(path)
    path.write_text(path.read_text().replace("Mock US Inc.", "Mock US LLC"), encoding="utf-8")
    assert seeds.load_seed(path).accounts["acct_mock_us"].name == "Mock US LLC"
    assert len(list(big_seed_cache.iterdir())) == 2


def test_an_invalid_seed_is_reported_and_not_cached(big_seed_cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("version: 2\naccounts: []\n", encoding="utf-8")
    with pytest.raises(SeedError, match="unsupported version"):
        seeds.load_seed(path)
    assert not big_seed_cache.exists() or not list(big_seed_cache.iterdir())


@pytest.mark.parametrize(
    "content", [b"", b"not json", b"\x80\x05K\x01."], ids=["empty", "garbage", "a pickle"]
)
def test_a_broken_entry_is_ignored_and_rewritten(
    big_seed_cache: Path, tmp_path: Path, content: bytes
) -> None:
    path = seed_copy(tmp_path)
    expected = seeds.load_seed(path)
    (entry,) = big_seed_cache.iterdir()
    entry.write_bytes(content)
    assert seeds.load_seed(path) == expected
    assert entry.read_bytes() != content
    assert seed_cache.load(entry, str(path)) == expected


def test_the_switch_turns_the_cache_off(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOCKSERVER_SEED_CACHE", "0")
    seeds.load_seed(seed_copy(tmp_path))
    assert not big_seed_cache.exists()


def test_small_seeds_never_touch_the_cache(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seed_cache, "MIN_BYTES", 5_000_000)
    seeds.load_seed(seed_copy(tmp_path))
    assert not big_seed_cache.exists()


def test_a_directory_others_may_write_to_is_not_used(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = seed_copy(tmp_path)
    seeds.load_seed(path)
    big_seed_cache.chmod(0o777)
    no_parsing(monkeypatch)
    with pytest.raises(AssertionError, match="was parsed"):
        seeds.load_seed(path)


def test_only_the_newest_entries_are_kept(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seed_cache, "KEEP", 2)
    path = seed_copy(tmp_path)
    names, original = [], path.read_text(encoding="utf-8")
    for number in range(3):
        text = original.replace("Mock US", f"Mock {number}")
        path.write_text(text, encoding="utf-8")
        seeds.load_seed(path)
        names.append(seed_cache.entry_path(text).name)
        entry = big_seed_cache / names[-1]
        os.utime(entry, (number, number))  # the newest by mtime, whatever the clock's grain
    assert sorted(p.name for p in big_seed_cache.iterdir()) == sorted(names[1:])


def test_a_seed_read_back_keeps_every_list_in_its_order(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vaults, documents and workflows are written a column per field (see
    seeds/cache_entries.py): each list reads back whole, in order."""
    path = seed_copy(tmp_path)
    parsed = seeds.load_seed(path)
    no_parsing(monkeypatch)
    cached = seeds.load_seed(path)
    assert cached == parsed
    for key, env in parsed.environments.items():
        assert [d.id for d in cached.environments[key].documents] == [d.id for d in env.documents]
        assert cached.environments[key].workflows == env.workflows
        assert cached.environments[key].vaults == env.vaults


def test_webhook_endpoints_are_cached_too(
    big_seed_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hooks.yaml"
    path.write_text(
        """\
version: 1
accounts:
  - id: acct_hooks
    name: Hooks Ltd
    default_region: us
    environments:
      live:
        webhook_endpoints:
          - {id: whk_a, url: "https://a.example/", events: ["*"], created_at: "2025-01-01"}
""",
        encoding="utf-8",
    )
    parsed = seeds.load_seed(path)
    no_parsing(monkeypatch)
    cached = seeds.load_seed(path)
    assert cached == parsed
    hooks = cached.environments[("acct_hooks", "live")].webhook_endpoints
    assert [hook.id for hook in hooks] == ["whk_a"]


def test_the_default_seed_is_kept_apart_and_without_its_histories(
    seed_cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = default_seed_path()
    parsed = seeds.load_seed_text(path.read_text(encoding="utf-8"), str(path))
    stored = seeds.load_seed(path)
    (entry,) = seed_cache_home.iterdir()
    assert entry.name.startswith("default-")  # pruned apart from big seeds' entries
    no_parsing(monkeypatch)
    cached = seeds.load_seed(path)
    assert cached == stored == parsed
    assert cached.digest is None  # its seeded histories are made, never cached
    assert stored.digest is None
