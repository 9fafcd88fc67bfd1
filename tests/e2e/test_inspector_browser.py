"""The inspector in a real headless Chromium (Debian's, driven by Playwright; never a browser
Playwright downloads): API calls appear in the journal, the page's buttons move the clock, lock
a document, fire a webhook retry, redeliver, load a scenario and verify the audit chain.

Every wait is Playwright's auto-waiting `expect` (bounded by its timeout) or a bounded receiver
wait. Screenshots go to a temporary folder, or to `docs/screenshots` with
`INSPECTOR_SCREENSHOTS=docs/screenshots` (what `make screenshots` does for the README and the docs).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.testing.receiver import WebhookReceiver, closed_port
from mockserver.web.app import create_app
from tests.support.browser import CHROMIUM, NO_CHROMIUM, chromium_context
from tests.support.keys import auth

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def ui_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", webhook_timeout=5.0))


@pytest.fixture(scope="module")
def server(ui_app: Starlette) -> Iterator[LiveServer]:
    live = LiveServer(ui_app).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser_context() -> Iterator[Any]:
    with chromium_context() as context:
        yield context


@pytest.fixture
def page(browser_context: Any, ui_app: Starlette) -> Iterator[Any]:
    ui_app.state.store.reset()
    tab = browser_context.new_page()
    yield tab
    tab.close()


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, headers=auth(), timeout=10) as http:
        yield http
        http.post("/_mock/webhooks/wait", json={"timeout": 10})


@pytest.fixture(scope="module")
def shots() -> Iterator[Path]:
    wanted = os.environ.get("INSPECTOR_SCREENSHOTS")
    if wanted:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        yield Path(wanted)
        return
    with tempfile.TemporaryDirectory(prefix="mockserver-shots-") as folder:
        yield Path(folder)


def shot(page: Any, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 1000


def test_api_calls_appear_in_the_journal(
    page: Any, client: httpx.Client, server: LiveServer, shots: Path
) -> None:
    p = page
    p.goto(f"{server.base_url}/_mock/ui/requests")
    expect(p.get_by_test_id("live-status")).to_have_text("Live refresh on.")
    client.get("/v1/documents")
    client.post("/v1/vaults", json={"name": "Seen in the browser", "region": "us"})
    client.get("/v1/vaults/vault_missing")
    rows = p.get_by_test_id("journal-row")
    expect(rows).to_have_count(3)  # live refresh, no reload
    expect(rows.first).to_contain_text("/v1/vaults/vault_missing")
    expect(rows.first).to_contain_text("404")
    expect(rows.first.get_by_test_id("journal-why")).to_contain_text("not_found: No such vault")
    expect(rows.last.get_by_test_id("journal-why")).to_have_text("")
    shot(p, shots, "requests")
    p.get_by_label("Status").fill("404")
    p.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)
    rows.first.get_by_role("link").first.click()
    expect(p.get_by_test_id("detail-status")).to_have_text("404")
    expect(p.get_by_test_id("response-body")).to_contain_text("not_found")
    expect(p.get_by_test_id("explain-check")).to_have_text("not_found")
    expect(p.get_by_test_id("explain-resource")).to_have_text("vault_missing")
    p.keyboard.press("g")
    p.keyboard.press("w")
    expect(p).to_have_url(f"{server.base_url}/_mock/ui/webhooks")


def test_clock_buttons_lock_a_document_and_fire_a_retry_then_redeliver(
    page: Any, client: httpx.Client, server: LiveServer, shots: Path
) -> None:
    p = page
    # Every other seeded signed document locks by 09:03:55; doc_mock_signed locks at 09:04:00.
    client.post("/_mock/clock/set", json={"at": "2026-01-15T09:03:59Z"}).raise_for_status()
    with WebhookReceiver() as receiver:
        receiver.respond(500)  # the first attempt fails, the retry (60 s later) succeeds
        client.post(
            "/v1/webhook_endpoints", json={"url": receiver.url, "events": ["document.locked"]}
        ).raise_for_status()
        p.goto(f"{server.base_url}/_mock/ui")
        p.get_by_role("button", name="+1 min").click()
        expect(p.get_by_test_id("notice")).to_contain_text("to 2026-01-15T09:04:59Z")
        expect(p.get_by_test_id("clock-now")).to_have_text("2026-01-15T09:04:59Z")
        p.get_by_role("link", name="Resources").click()
        status = p.get_by_test_id("doc-doc_mock_signed").get_by_test_id("doc-status")
        expect(status).to_have_text("locked")
        shot(p, shots, "resources")
        p.get_by_role("link", name="Webhooks").click()
        deliveries = p.get_by_test_id("delivery")
        expect(deliveries).to_have_count(1)
        attempts = deliveries.get_by_test_id("attempt")
        expect(attempts).to_have_count(1)
        expect(attempts).to_contain_text("at 2026-01-15T09:04:00Z: answered 500")
        expect(deliveries.get_by_test_id("next-retry")).to_contain_text("2026-01-15T09:05:00Z")
        p.get_by_role("link", name="Overview").click()
        p.get_by_role("button", name="+1 min").click()
        expect(p.get_by_test_id("notice")).to_contain_text("to 2026-01-15T09:05:59Z")
        assert len(receiver.wait_for(2)) == 2
        p.get_by_role("link", name="Webhooks").click()
        expect(attempts).to_have_count(2)
        expect(attempts.last).to_contain_text("at 2026-01-15T09:05:00Z: 200")
        expect(deliveries.get_by_test_id("delivery-status")).to_have_text("delivered")
        expect(p.get_by_test_id("endpoint-summary")).to_have_text("1 delivered")
        deliveries.get_by_role("button", name="Redeliver").click()
        expect(p.get_by_test_id("notice")).to_contain_text("a redelivery of whd_")
        assert len(receiver.wait_for(3)) == 3
        expect(deliveries).to_have_count(2)  # live refresh shows the copy's attempt
        expect(deliveries.first.get_by_test_id("delivery-status")).to_have_text("delivered")
        expect(deliveries.first).to_contain_text("redelivery of whd_")
        # The trigger form makes an event happen; the resend button sends one again.
        p.get_by_label("Event type").select_option("document.locked")
        p.get_by_label("Overrides").fill("title=From the browser")
        p.get_by_role("button", name="Trigger").click()
        expect(p.get_by_test_id("notice")).to_contain_text("Triggered document.locked: evt_")
        assert len(receiver.wait_for(4)) == 4
        expect(deliveries).to_have_count(3)
        deliveries.first.get_by_role("button", name="Resend").click()
        expect(p.get_by_test_id("notice")).to_contain_text("sent again")
        assert len(receiver.wait_for(5)) == 5
        assert receiver.received[4].body == receiver.received[3].body


def test_a_dead_endpoint_shows_what_its_queued_events_wait_for(
    page: Any, client: httpx.Client, server: LiveServer, shots: Path
) -> None:
    p = page
    dead = f"http://127.0.0.1:{closed_port()}/hooks"
    client.post("/v1/webhook_endpoints", json={"url": dead, "events": ["vault.created"]})
    with WebhookReceiver() as receiver:
        client.post("/v1/webhook_endpoints", json={"url": receiver.url, "events": ["*"]})
        for name in ("Contracts", "Board", "Payroll"):
            client.post("/v1/vaults", json={"name": name, "region": "us"}).raise_for_status()
        assert len(receiver.wait_for(3)) == 3
        client.post("/_mock/webhooks/wait", json={"timeout": 10})
    p.goto(f"{server.base_url}/_mock/ui/webhooks")
    groups = p.get_by_test_id("endpoint")
    expect(groups).to_have_count(2)
    expect(groups.first.get_by_test_id("endpoint-summary")).to_have_text("1 retrying · 2 queued")
    expect(groups.last.get_by_test_id("endpoint-summary")).to_have_text("3 delivered")
    first = groups.first.get_by_test_id("delivery").first
    expect(first.get_by_test_id("attempt")).to_contain_text("connection failed")
    expect(first.get_by_test_id("next-retry")).to_contain_text("2026-01-15T09:01:00Z")
    waits = groups.first.get_by_test_id("waits")
    expect(waits).to_have_count(2)
    expect(waits.first).to_contain_text("Waits behind vault.created evt_")
    shot(p, shots, "webhooks")
    whole = first.locator("[data-copy]").first.get_attribute("data-copy")
    first.locator("[data-copy]").first.click()  # copies the whole id, or says it
    expect(p.get_by_test_id("live-status")).to_contain_text(whole)


def test_load_a_scenario_from_the_page(page: Any, server: LiveServer, shots: Path) -> None:
    p = page
    p.goto(f"{server.base_url}/_mock/ui")
    p.get_by_label("Load from scenarios/").select_option("flaky_documents")
    p.get_by_role("button", name="Load", exact=True).click()
    expect(p.get_by_test_id("notice")).to_have_text("Scenario flaky_documents loaded.")
    expect(p.get_by_test_id("scenario-row")).to_contain_text("flaky_documents")
    shot(p, shots, "overview")
    p.get_by_role("button", name="Unload all").click()
    expect(p.get_by_test_id("scenario-row")).to_have_count(0)


def test_verify_the_chain_then_see_it_break(
    page: Any, server: LiveServer, ui_app: Starlette, shots: Path
) -> None:
    p = page
    name = "acct_mock_us:sandbox:us"
    p.goto(f"{server.base_url}/_mock/ui/audit")
    p.get_by_role("button", name=f"Verify {name}").click()
    result = p.get_by_test_id(f"chain-{name}").get_by_test_id("verify-result")
    expect(result).to_contain_text("Verified: all")
    events = ui_app.state.store.world("acct_mock_us", "sandbox").regions["us"].audit.events
    second = events[1]
    events[1] = second.replace(raw=second.raw.replace(b'"actor":"', b'"actor":"x'))
    p.get_by_role("button", name=f"Verify {name}").click()
    expect(result).to_contain_text(f"Broken: event #2 {second.id}")
    shot(p, shots, "audit")
