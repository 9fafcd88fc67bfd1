"""The documentation stays true to the code: generated pages are current, and the README is a
front page that points only inside the repository."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.fixture(scope="module")
def gen() -> Iterator[ModuleType]:
    sys.path.insert(0, str(ROOT))
    try:
        yield importlib.import_module("docs.gen")
    finally:
        sys.path.remove(str(ROOT))


def test_generated_pages_are_current(gen: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """CLI reference, scenario fields and benchmark table match the parser, schema and run."""
    status = gen.main(["--check"])
    stale = capsys.readouterr().out
    assert status == 0, f"run `python -m docs.gen` and commit the result:\n{stale}"


def test_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200
    commands = [line.split("#")[0].strip() for line in lines if line.startswith("make ")]
    assert commands[:2] == ["make run", "make test"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_links_stay_inside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    for target in targets:
        assert not re.match(r"[a-z]+://", target), f"{page.name} links outside: {target}"
        path = target.split("#")[0]
        if path:
            assert (page.parent / path).resolve().exists(), f"{page.name}: no {path}"
    assert "../shared" not in text
