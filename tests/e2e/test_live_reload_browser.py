"""Live editing as QA see it in the inspector (a real Chromium, a real `run --watch`): a file
saved with a problem puts a banner with its line on the open page, the fix takes it away,
and the journal and the scenarios page name the version that answered. Screenshots go to a
temporary folder, or to `docs/screenshots` with `INSPECTOR_SCREENSHOTS=docs/screenshots`
(`make screenshots`), for the guide "Edit scenarios while the mock runs"."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.browser import CHROMIUM, NO_CHROMIUM, chromium_context
from tests.support.cli import Run
from tests.support.keys import auth

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)

SCENARIO = """\
name: vault_outage
description: The vault list is down for the full key.
rules:
  - name: vaults_down
    match:
      method: GET
      path: /v1/vaults
      key: sk_test_mock_full
    respond:
      status: {status}
      error:
        message: The vault service is unavailable.
"""


@pytest.fixture
def shots() -> Iterator[Path]:
    wanted = os.environ.get("INSPECTOR_SCREENSHOTS")
    if wanted:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        yield Path(wanted)
        return
    with tempfile.TemporaryDirectory(prefix="mockserver-shots-") as folder:
        yield Path(folder)


@pytest.fixture
def page() -> Iterator[Any]:
    with chromium_context() as context:
        yield context.new_page()


def shot(page: Any, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 1000


def save(path: Path, text: str) -> None:
    """As an editor saves: a temporary file renamed over the old one."""
    temporary = path.with_name(f".{path.name}.swp")
    temporary.write_text(text)
    os.replace(temporary, path)


def test_a_broken_save_shows_a_banner_the_fix_clears_and_the_journal_names_the_version(
    tmp_path: Path, page: Any, shots: Path
) -> None:
    project = Path(tempfile.mkdtemp(prefix="qa-"))  # a short path for the screenshots
    folder = project / "scenarios"
    folder.mkdir()
    scenario = folder / "vault_outage.yaml"
    scenario.write_text(SCENARIO.format(status=503))
    run = Run(
        tmp_path, "--port", "0", "--watch", "--clock", "frozen", "--scenario-dir", str(folder)
    )
    run.start()
    try:
        _, port = run.listening()
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, headers=auth(), timeout=30) as client:
            assert client.get("/v1/vaults").status_code == 503
            page.goto(f"{base}/_mock/ui/scenarios")
            expect(page.get_by_test_id("scenario-version")).to_have_count(1)

            broken = SCENARIO.format(status=503).replace("      status: 503", "      status: soon")
            save(scenario, broken)
            banner = page.get_by_test_id("reload-error")  # the open page refreshes itself
            expect(banner).to_contain_text("Line 10:")
            expect(banner).to_contain_text("vault_outage.yaml")
            expect(page.get_by_test_id("scenario-reload-error")).to_contain_text("line 10")
            assert client.get("/v1/vaults").status_code == 503  # the old version serves
            shot(page, shots, "live-reload-error")

            save(scenario, SCENARIO.format(status=429))
            expect(banner).to_have_count(0)
            assert client.get("/v1/vaults").status_code == 429
            version = client.get("/_mock/scenarios").json()["data"][0]["version"]
            expect(page.get_by_test_id("scenario-version")).to_have_text(version)
            expect(page.get_by_test_id("scenario-reload-error")).to_have_text("none")
            shot(page, shots, "live-reload-scenarios")

            page.goto(f"{base}/_mock/ui/requests")
            marks = page.get_by_test_id("journal-version")
            expect(marks.first).to_have_text(f"vault_outage@{version}")
            expect(marks).to_have_count(3)  # two 503s of the first version, the 429 of the last
            shot(page, shots, "live-reload-journal")
    finally:
        run.kill()
        shutil.rmtree(project)
