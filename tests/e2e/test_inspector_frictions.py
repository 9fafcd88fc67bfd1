"""What QA met in the inspector, checked in a real headless Chromium (Debian's, through
Playwright, as test_inspector_browser.py): the accounts table stays in its card, a request
answered before its body was read says so, the webhooks page's trigger is an action apart from
its filter, a delivered item is not called queued, ids are shown whole, new documents come
first, the journal's key filter takes the key as the page shows it, and no timestamp wraps.

Layout is measured in the browser (boxes, client rects), not read from the stylesheet.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.browser import CHROMIUM, NO_CHROMIUM, chromium_context
from tests.support.keys import READONLY, auth

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
LONG_NAME = (
    "tests/e2e/test_checkout_flow.py::TestCheckout::test_a_signed_contract_locks[eu-sandbox-x]"
)


@pytest.fixture(scope="module")
def ui_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", webhook_timeout=5.0))


@pytest.fixture(scope="module")
def server(ui_app: Starlette) -> Iterator[LiveServer]:
    live = LiveServer(ui_app).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with chromium_context() as browser:
        yield browser


@pytest.fixture
def page(context: Any, ui_app: Starlette) -> Iterator[Any]:
    ui_app.state.store.reset()
    tab = context.new_page()
    yield tab
    tab.close()


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, headers=auth(), timeout=10) as http:
        yield http


def overflow(locator: Any) -> float:
    """How far (px) the element's content reaches past its own box, to the right."""
    return float(locator.evaluate("el => el.scrollWidth - el.clientWidth"))


def wrapped_times(page: Any) -> list[str]:
    """The <time> elements of the page laid out on more than one line."""
    return list(
        page.evaluate(
            """() => [...document.querySelectorAll('main time, header time')]
                .filter(el => el.getClientRects().length > 1
                              || el.getBoundingClientRect().height > 1.6 * parseFloat(
                                   getComputedStyle(el).lineHeight || '20'))
                .map(el => el.textContent)"""
        )
    )


def test_the_accounts_table_stays_in_its_card(
    page: Any, client: httpx.Client, server: LiveServer
) -> None:
    for suffix in ("a", "b"):
        made = client.post("/_mock/accounts", json={"name": f"{LONG_NAME}{suffix}"})
        assert made.status_code == 201, made.text
    page.goto(f"{server.base_url}/_mock/ui")
    expect(page.get_by_test_id("account-row")).to_have_count(2)
    card = page.locator("section", has=page.get_by_role("heading", name="Accounts"))
    assert overflow(card) <= 1
    table = page.get_by_test_id("accounts")
    card_box, table_box = card.bounding_box(), table.bounding_box()
    assert table_box["x"] + table_box["width"] <= card_box["x"] + card_box["width"] + 1
    for section in page.locator(".grid > section").all():
        assert overflow(section) <= 1
    assert wrapped_times(page) == []


def test_a_request_answered_before_its_body_was_read_says_so(
    page: Any, client: httpx.Client, server: LiveServer
) -> None:
    body = {"title": "NDA", "vault_id": "vault_mock_us"}
    refused = client.post("/v1/documents", json=body, headers=auth("sk_test_nobody_at_all"))
    assert refused.status_code == 401
    refused_seq = client.get("/_mock/requests", params={"limit": 1}).json()["data"][0]["seq"]
    assert client.post("/v1/documents", json=body).status_code == 201
    read_seq = client.get("/_mock/requests", params={"limit": 1}).json()["data"][0]["seq"]
    page.goto(f"{server.base_url}/_mock/ui/requests/{refused_seq}")
    size = page.get_by_test_id("request-body-size")
    expect(size).to_contain_text("Body: not read")
    expect(size).to_contain_text("Content-Length: ")
    expect(size).not_to_contain_text("0 bytes")
    page.goto(f"{server.base_url}/_mock/ui/requests/{read_seq}")
    expect(page.get_by_test_id("request-body-size")).to_have_text(
        f"Body: {len(refused.request.content)} bytes"
    )


def test_webhooks_trigger_is_an_action_and_deliveries_read_right(
    page: Any, client: httpx.Client, server: LiveServer
) -> None:
    with WebhookReceiver() as receiver:
        hook = {"url": receiver.url, "events": ["vault.created"]}
        assert client.post("/v1/webhook_endpoints", json=hook).status_code == 201
        assert client.post("/v1/vaults", json={"name": "Board", "region": "us"}).is_success
        assert len(receiver.wait_for(1)) == 1
        client.post("/_mock/webhooks/wait", json={"timeout": 10})
    (delivery,) = client.get("/_mock/webhooks/deliveries").json()["data"]
    page.goto(f"{server.base_url}/_mock/ui/webhooks")
    trigger = page.get_by_role("region", name="Trigger an event")
    expect(trigger.get_by_role("button", name="Trigger event")).to_be_visible()
    search = page.get_by_role("search", name="Filter deliveries")
    expect(search.get_by_role("button", name="Filter")).to_be_visible()
    expect(search.get_by_role("button", name="Trigger event")).to_have_count(0)
    expect(trigger.get_by_label("Show deliveries with status")).to_have_count(0)
    item = page.get_by_test_id("delivery")
    expect(item.get_by_test_id("delivery-status")).to_have_text("delivered")
    expect(item).not_to_contain_text("queued")
    expect(item).to_contain_text(f"created {delivery['created_at']}")
    for whole in (delivery["id"], delivery["event_id"]):  # whole, and all of it visible
        shown = item.locator(f'code.id[data-copy="{whole}"]').first
        expect(shown).to_have_text(whole)
        assert overflow(shown) <= 1
    page.set_viewport_size({"width": 640, "height": 800})
    assert wrapped_times(page) == []
    page.set_viewport_size({"width": 1280, "height": 800})


def test_new_documents_come_first(page: Any, client: httpx.Client, server: LiveServer) -> None:
    made = client.post("/v1/documents", json={"title": "Fresh", "vault_id": "vault_mock_us"})
    assert made.status_code == 201
    listed = client.get("/v1/documents", params={"vault_id": "vault_mock_us"}).json()["data"]
    assert listed[0]["id"] == made.json()["id"]  # the API: newest first
    page.goto(f"{server.base_url}/_mock/ui/resources")
    table = page.locator("table", has=page.locator("caption", has_text="Documents")).first
    expect(table.locator("tbody tr").first).to_have_attribute(
        "data-testid", f"doc-{made.json()['id']}"
    )


def test_the_key_filter_takes_the_key_as_shown(
    page: Any, client: httpx.Client, server: LiveServer
) -> None:
    client.get("/v1/vaults")
    client.get("/v1/vaults", headers=auth(READONLY))
    client.get("/v1/documents")
    page.goto(f"{server.base_url}/_mock/ui/requests")
    rows = page.get_by_test_id("journal-row")
    expect(rows).to_have_count(3)
    shown = rows.first.locator("td").nth(5).inner_text().strip()
    assert shown != "sk_test_mock_full"
    assert shown.endswith("full")  # masked
    for typed, count in ((shown, 2), ("sk_test_mock_r", 1), ("sk_test_mock_full", 2)):
        page.get_by_label("Key").fill(typed)
        page.get_by_role("button", name="Filter").click()
        expect(rows).to_have_count(count)
    page.set_viewport_size({"width": 700, "height": 800})
    assert wrapped_times(page) == []
    page.set_viewport_size({"width": 1280, "height": 800})
