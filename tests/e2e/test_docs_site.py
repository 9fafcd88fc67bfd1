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

ROOT = Path(__file__).resolve().parents[2]
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


def test_the_endpoint_table_lists_every_route() -> None:
    """docs/reference/endpoints.md names every API and control-plane route the app serves,
    and every write there comes with its body (the inspector's pages are listed as one row,
    and so are an account's own endpoints, each of which must be a server endpoint's)."""
    from mockserver.core.config import Settings
    from mockserver.web.app import create_app
    from tests.support.routes import route_table

    table = (ROOT / "docs" / "reference" / "endpoints.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`") for line in table.splitlines() if "| `" in line}
    missing = []
    routes = route_table(create_app(Settings()))
    assert len(routes) > 50  # the API's and the control plane's
    account = "/_mock/accounts/{account_id}/"
    assert f"{account}..." in rows
    for methods, path in routes:
        if path.startswith("/_mock/ui"):
            continue
        if path.startswith(account):
            path = "/_mock/" + path.removeprefix(account)  # the server's of the same name
        for method in sorted(methods - {"HEAD"}):
            if f"{method} {path}" not in rows:
                missing.append(f"{method} {path}")
    assert not missing, f"add to docs/reference/endpoints.md: {missing}"
