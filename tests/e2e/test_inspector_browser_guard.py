"""What a real browser does with the inspector's defences (Debian's headless Chromium, driven by
Playwright, as in test_inspector_browser.py): it will not show the inspector inside another
page's frame, a link from another site is refused, the account chooser's buttons still work,
and so does signing in with an admin token.

The other pages are served by a second server on this machine (the browser lets a page of a
loopback address frame another, where it would block a public site's page): named as
`localhost`, it is another site than the inspector's `127.0.0.1`; named as `127.0.0.1`, it is
another port of the same site, which the control plane's guard lets through, so only the frame
headers keep the inspector out of its frame.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.browser import ARGS, CHROMIUM, NO_CHROMIUM, WAIT_MS

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def ui_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen"))


@pytest.fixture(scope="module")
def server(ui_app: Starlette) -> Iterator[LiveServer]:
    live = LiveServer(ui_app).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def pages(server: LiveServer) -> Iterator[LiveServer]:
    """Another server's pages: one that frames the inspector, one that links to it."""
    inspector = f"{server.base_url}/_mock/ui"
    html = {
        "framing": f'<iframe src="{inspector}" width="900" height="600"></iframe>',
        "links": f'<a href="{inspector}">the inspector</a>',
    }

    async def serve(request: Request) -> HTMLResponse:
        return HTMLResponse(
            f"<!doctype html><title>A page</title>{html[request.path_params['name']]}"
        )

    live = LiveServer(Starlette(routes=[Route("/{name}.html", serve)])).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def token_server() -> Iterator[LiveServer]:
    live = LiveServer(create_app(Settings(clock_mode="frozen", admin_token="s3cret"))).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert CHROMIUM is not None
    with playwright_sync.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, ui_app: Starlette) -> Iterator[Any]:
    ui_app.state.store.reset()
    context = browser.new_context()  # its own cookies
    context.set_default_timeout(WAIT_MS)
    expect.set_options(timeout=WAIT_MS)
    yield context.new_page()
    context.close()


def the_frame(tab: Any, parent: str) -> Any:
    """Open `parent`, a page whose only content is a frame; that frame once its navigation has
    committed: to the page it asked for, or to the browser's error page."""
    tab.goto(parent)
    frames = [frame for frame in tab.frames if frame != tab.main_frame]
    assert len(frames) == 1
    frames[0].wait_for_url(re.compile(r"^(http|chrome-error):"))
    return frames[0]


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"], ids=["another site", "same site"])
def test_no_page_can_show_the_inspector_in_a_frame(page: Any, pages: LiveServer, host: str) -> None:
    frame = the_frame(page, f"http://{host}:{pages.port}/framing.html")
    assert frame.url.startswith("chrome-error:"), frame.url  # what Chromium shows instead
    assert frame.locator("form").count() == 0  # no button to press


def test_the_inspector_opens_in_a_tab_of_its_own(page: Any, server: LiveServer) -> None:
    page.goto(f"{server.base_url}/_mock/ui")  # typed: Sec-Fetch-Site none
    expect(page.locator(".brand")).to_have_text("mockserver inspector")
    page.get_by_role("button", name="+1 min").click()  # same-origin form
    expect(page.get_by_test_id("notice")).to_contain_text("Clock advanced 60 s")
    expect(page.get_by_test_id("live-status")).to_have_text("Live refresh on.")


def test_a_link_from_another_site_is_refused(
    page: Any, pages: LiveServer, server: LiveServer
) -> None:
    page.goto(f"http://localhost:{pages.port}/links.html")
    with page.expect_navigation():
        page.get_by_role("link", name="the inspector").click()
    assert page.url == f"{server.base_url}/_mock/ui"
    assert '"param":"Sec-Fetch-Site"' in page.content()


def test_the_account_chooser_watches_and_goes_back(
    page: Any, server: LiveServer, ui_app: Starlette
) -> None:
    made = httpx.post(f"{server.base_url}/_mock/accounts", json={"name": "Team B"}).json()
    page.goto(f"{server.base_url}/_mock/ui")
    page.get_by_role("button", name="Watch Team B").click()
    expect(page.get_by_test_id("watching")).to_contain_text(made["id"])
    expect(page.get_by_role("button", name="Reset the account")).to_be_visible()
    page.get_by_role("link", name="Requests").click()
    expect(page.get_by_test_id("watching")).to_contain_text("Team B")  # kept across pages
    page.get_by_role("button", name="Watch the whole server").click()
    expect(page.get_by_test_id("watching")).to_have_count(0)
    expect(page.get_by_role("button", name="Reset the mock")).to_be_visible()
    httpx.delete(f"{server.base_url}/_mock/accounts/{made['id']}")


def test_signing_in_with_the_admin_token(page: Any, token_server: LiveServer) -> None:
    page.goto(f"{token_server.base_url}/_mock/ui")
    expect(page).to_have_url(f"{token_server.base_url}/_mock/ui/login")
    page.get_by_label("Admin token").fill("s3cret")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{token_server.base_url}/_mock/ui")
    expect(page.locator(".brand")).to_have_text("mockserver inspector")
    page.get_by_role("button", name="+1 h").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Clock advanced 3600 s")
