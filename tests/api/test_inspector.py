"""The inspector's pages and forms over HTTP, without a browser: what each view shows, what each
button changes, the guard, and every bad input answered with the envelope and no change."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.keys import FULL, auth

UI = "/_mock/ui"


def clock_now(client: httpx.Client) -> str:
    now: str = client.get("/_mock/clock").json()["now"]
    return now


def assert_error(response: httpx.Response, status: int, param: str | None) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error.get("param") == param
    assert error["message"]


def test_every_view_renders_as_html_without_javascript(both: httpx.Client) -> None:
    both.get("/v1/documents")
    for path in ("", "/requests", "/requests/1", "/webhooks", "/resources", "/audit"):
        response = both.get(UI + path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html")
        assert "<main" in response.text
        assert '<nav aria-label="Views">' in response.text


def test_journal_lists_api_calls_newest_first_with_filters(both: httpx.Client) -> None:
    both.get("/v1/documents")
    both.get("/v1/vaults/vault_missing")
    both.post("/v1/vaults", json={"name": "Inspector vault", "region": "us"})
    page = both.get(f"{UI}/requests").text
    paths = re.findall(r'<td class="path"><a href="/_mock/ui/requests/\d+">([^<?]+)', page)
    assert paths == ["/v1/vaults", "/v1/vaults/vault_missing", "/v1/documents"]
    only_404 = both.get(f"{UI}/requests", params={"status": "404"}).text
    assert "/v1/vaults/vault_missing" in only_404
    assert "/v1/documents" not in only_404
    posts = both.get(f"{UI}/requests", params={"method": "post", "path": "/v1/"}).text
    assert posts.count('data-testid="journal-row"') == 1
    by_key = both.get(f"{UI}/requests", params={"key": "sk_test_other"}).text
    assert 'data-testid="journal-row"' not in by_key


def test_request_detail_shows_headers_bodies_rule_and_rate_limit(both: httpx.Client) -> None:
    both.post("/v1/vaults", json={"name": "Detail vault", "region": "us"})
    page = both.get(f"{UI}/requests/1").text
    assert "Detail vault" in page  # the request body
    assert "vault_" in page  # the response body
    assert "x-request-id" in page
    assert FULL not in page  # credentials stay masked
    rate = page.split('data-testid="rate-limit"', 1)[1].split("</dl>", 1)[0]
    assert "<dt>x-ratelimit-limit</dt><dd>120</dd>" in rate
    assert "none (the mock&#39;s own behaviour)" in page


def test_bad_filters_and_unknown_entries_get_the_envelope(api: httpx.Client) -> None:
    assert_error(api.get(f"{UI}/requests", params={"status": "abc"}), 422, "status")
    assert_error(api.get(f"{UI}/requests", params={"method": "BREW"}), 422, "method")
    assert_error(api.get(f"{UI}/webhooks", params={"status": "lost"}), 422, "status")
    assert_error(api.get(f"{UI}/audit", params={"verify": "nope:x:y"}), 422, "verify")
    assert api.get(f"{UI}/requests/999").status_code == 404
    assert api.get(f"{UI}/static/secret.txt").status_code == 404


def test_advance_presets_run_timers_and_lock_the_signed_document(both: httpx.Client) -> None:
    before = both.get(f"{UI}/resources").text
    assert 'data-testid="doc-doc_mock_signed"' in before
    assert "locks at" in before
    response = both.post(f"{UI}/clock/advance", data={"seconds": "300"})
    assert response.status_code == 303
    assert response.headers["location"].startswith(f"{UI}?notice=")
    assert clock_now(both) == "2026-01-15T09:05:00Z"
    row = both.get(f"{UI}/resources").text.split('data-testid="doc-doc_mock_signed"', 1)[1]
    current = re.search(r'aria-current="step" data-testid="doc-status">(\w+)<', row)
    assert current is not None
    assert current.group(1) == "locked"
    overview = both.get(response.headers["location"]).text
    assert "Clock advanced 300 s to 2026-01-15T09:05:00Z" in overview


def test_set_clock_forward_and_back(api: httpx.Client) -> None:
    assert api.post(f"{UI}/clock/set", data={"at": "2026-02-01T00:00:00Z"}).status_code == 303
    assert clock_now(api) == "2026-02-01T00:00:00Z"
    assert api.post(f"{UI}/clock/set", data={"at": "2026-01-20T00:00:00Z"}).status_code == 303
    assert clock_now(api) == "2026-01-20T00:00:00Z"


@pytest.mark.parametrize(
    ("path", "form", "param"),
    [
        ("/clock/advance", {"seconds": "-1"}, "seconds"),
        ("/clock/advance", {"seconds": "soon"}, "seconds"),
        ("/clock/advance", {"seconds": "nan"}, "seconds"),
        ("/clock/advance", {}, "seconds"),
        ("/clock/set", {"at": "tomorrow"}, "at"),
        ("/clock/set", {}, "at"),
    ],
)
def test_bad_clock_forms_change_nothing(
    api: httpx.Client, path: str, form: dict[str, str], param: str
) -> None:
    before = clock_now(api)
    assert_error(api.post(UI + path, data=form), 422, param)
    assert clock_now(api) == before


def test_scenarios_load_show_and_unload(both: httpx.Client) -> None:
    assert both.post(f"{UI}/scenarios/load", data={"name": "flaky_documents"}).status_code == 303
    loaded = both.get("/_mock/scenarios").json()["data"]
    assert [s["name"] for s in loaded] == ["flaky_documents"]
    assert 'data-testid="scenario-row"' in both.get(UI).text
    assert both.post(f"{UI}/scenarios/unload").status_code == 303
    assert both.get("/_mock/scenarios").json()["data"] == []
    assert_error(both.post(f"{UI}/scenarios/load", data={"name": "../seeds"}), 404, "name")


def test_reset_returns_to_the_seed(api: httpx.Client) -> None:
    api.post("/_mock/clock/advance", json={"seconds": 60})
    api.get("/v1/documents")
    assert api.post(f"{UI}/reset").status_code == 303
    assert clock_now(api) == "2026-01-15T09:00:00Z"
    assert api.get("/_mock/requests").json()["total"] == 0


def test_verify_finds_the_first_broken_link(api: httpx.Client, fresh_app: Starlette) -> None:
    ok = api.get(f"{UI}/audit", params={"verify": "all"}).text
    assert "Broken" not in ok
    assert ok.count('data-testid="verify-result"') >= 2
    chain = fresh_app.state.store.world("acct_mock_us", "sandbox").regions["us"].audit.events
    third = chain[2]
    chain[2] = third.replace(raw=third.raw.replace(b'"seq":3', b'"seq":33'))
    target = "acct_mock_us:sandbox:us"
    page = api.get(f"{UI}/audit", params={"verify": target}).text
    assert f"Broken: event #3 <code>{third.id}</code>" in page
    chain[2] = third.replace(raw=b"not json")
    page = api.get(f"{UI}/audit", params={"verify": target}).text
    assert f"Broken: event #3 <code>{third.id}</code>" in page


def test_state_changes_when_something_happens(api: httpx.Client) -> None:
    first = api.get(f"{UI}/state").json()
    assert first["now"] == "2026-01-15T09:00:00Z"
    assert api.get(f"{UI}/state").json()["fingerprint"] == first["fingerprint"]
    api.get("/v1/documents")
    assert api.get(f"{UI}/state").json()["fingerprint"] != first["fingerprint"]


def test_forms_from_another_origin_are_refused(api: httpx.Client) -> None:
    before = clock_now(api)
    response = api.post(
        f"{UI}/clock/advance", data={"seconds": "60"}, headers={"Origin": "http://evil.example"}
    )
    assert_error(response, 403, "Origin")  # the control plane's browser guard
    another_port = api.post(
        f"{UI}/clock/advance", data={"seconds": "60"}, headers={"Origin": "http://localhost:3000"}
    )
    assert_error(another_port, 403, None)  # loopback, but not the inspector's own page
    assert clock_now(api) == before
    same = api.post(
        f"{UI}/clock/advance", data={"seconds": "60"}, headers={"Origin": "http://mock"}
    )
    assert same.status_code == 303


def test_redeliver_from_the_webhooks_page(api: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        api.post("/v1/webhook_endpoints", json={"url": receiver.url, "events": ["vault.created"]})
        api.post("/v1/vaults", json={"name": "Hooked", "region": "us"})
        api.post("/_mock/webhooks/wait", json={"timeout": 10})
        page = api.get(f"{UI}/webhooks").text
        delivery = re.search(r'action="/_mock/ui/webhooks/(whd_\w+)/redeliver"', page)
        assert delivery is not None
        assert 'data-testid="attempt"' in page
        response = api.post(f"{UI}/webhooks/{delivery.group(1)}/redeliver")
        assert response.status_code == 303
        api.post("/_mock/webhooks/wait", json={"timeout": 10})
        assert len(receiver.wait_for(2)) == 2
        copy = f'redelivery of <code class="id" title="{delivery.group(1)}"'
        assert copy in api.get(f"{UI}/webhooks").text
    assert api.post(f"{UI}/webhooks/whd_missing/redeliver").status_code == 404


@pytest.fixture(scope="module")
def guarded_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", admin_token="s3cret"))


@pytest.fixture
def guarded(guarded_app: Starlette) -> Iterator[httpx.Client]:
    guarded_app.state.store.reset()
    with inprocess_client(guarded_app, headers=auth()) as client:
        yield client


def test_admin_token_guards_the_inspector(guarded: httpx.Client) -> None:
    assert_error(guarded.get(UI), 401, None)
    assert_error(guarded.post(f"{UI}/reset"), 401, None)
    assert guarded.get(UI, headers={"X-Mock-Admin-Token": "s3cret"}).status_code == 200
    login = guarded.get(f"{UI}/login")
    assert login.status_code == 200
    assert "s3cret" not in login.text
    wrong = guarded.post(f"{UI}/login", data={"token": "guess"})
    assert wrong.status_code == 401
    assert "That is not the admin token." in wrong.text
    assert guarded.get(UI).status_code == 401
    right = guarded.post(f"{UI}/login", data={"token": "s3cret"})
    assert right.status_code == 303
    cookie = right.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert guarded.get(UI).status_code == 200  # the client keeps the cookie
    assert guarded.get("/_mock/clock").status_code == 401  # the JSON plane wants the header


def test_a_browser_without_the_token_is_sent_to_the_sign_in_page(guarded: httpx.Client) -> None:
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path in ("", "/requests", "/webhooks"):
        response = guarded.get(UI + path, headers=browser)
        assert response.status_code == 303, response.text
        assert response.headers["location"] == f"{UI}/login"
    assert guarded.get(f"{UI}/login", headers=browser).status_code == 200
    # A script, a wrong token and a form still get the 401 envelope.
    assert_error(guarded.get(UI), 401, None)
    assert_error(guarded.get(UI, headers={**browser, "X-Mock-Admin-Token": "guess"}), 401, None)
    assert_error(guarded.post(f"{UI}/reset", headers=browser), 401, None)


def test_no_admin_removes_the_inspector() -> None:
    app = create_app(Settings(clock_mode="frozen", admin=False))
    with inprocess_client(app) as client:
        for path in ("", "/requests", "/login", "/static/inspector.css"):
            assert client.get(UI + path).status_code == 404


def test_the_journal_says_why_each_error_was_refused(both: httpx.Client) -> None:
    both.get("/v1/documents")
    both.get("/v1/vaults/vault_mock_eu", headers={"Host": "us.localhost"})
    page = both.get(f"{UI}/requests").text
    whys = re.findall(r'<td class="why" data-testid="journal-why">(.*?)</td>', page)
    assert len(whys) == 2
    assert "<strong>not_found</strong>: No such vault: &#39;vault_mock_eu&#39;" in whys[0]
    assert whys[1] == ""  # a 200 has no why


def test_request_detail_shows_the_explain_fields(both: httpx.Client) -> None:
    both.get("/v1/vaults/vault_mock_eu", headers={"Host": "us.localhost"})
    both.get("/v1/whoami")
    page = both.get(f"{UI}/requests/1").text
    section = page.split('data-testid="explain"', 1)[1].split("</section>", 1)[0]
    assert "Why: not_found" in section
    assert '<dd data-testid="explain-region">eu</dd>' in section
    assert '<dd data-testid="explain-routed_region">us</dd>' in section
    assert '<dd data-testid="explain-resource">vault_mock_eu</dd>' in section
    assert 'data-testid="explain"' not in both.get(f"{UI}/requests/2").text


def test_explain_lists_are_shown_as_json(both: httpx.Client) -> None:
    both.post(
        "/v1/vaults", json={"name": "x", "region": "us"}, headers=auth("sk_test_mock_readonly")
    )
    page = both.get(f"{UI}/requests/1").text
    held = page.split('data-testid="explain-held">', 1)[1].split("</dd>", 1)[0]
    assert held == (
        '<code>["audit:read", "documents:read", "vaults:read", "webhooks:read", '
        '"workflows:read"]</code>'
    )


def test_the_journal_shows_a_transport_fault_and_a_chaos_hit(both: httpx.Client) -> None:
    scenario = (
        "name: broken\nrules:\n  - name: reset-whoami\n    match: {path: /v1/whoami}\n"
        "    respond: {fault: reset}\nchaos:\n  seed: 1\n  rules:\n"
        "    - name: always-busy\n      match: {path: /v1/vaults}\n      probability: 1\n"
        "      respond: {status: 503}\n"
    )
    assert both.post("/_mock/scenarios", json={"yaml": scenario}).status_code == 201
    with pytest.raises(httpx.TransportError):
        both.get("/v1/whoami")
    assert both.get("/v1/vaults").status_code == 503
    page = both.get(f"{UI}/requests").text
    faults = re.findall(r'data-testid="journal-fault"[^>]*>(.*?)</span>', page)
    assert faults == ["no answer, reset"]
    assert "chaos: always-busy" in page
    detail = both.get(f"{UI}/requests/1").text
    section = detail.split('data-testid="explain"', 1)[1].split("</section>", 1)[0]
    assert "Why: scenario" in section
    assert "the connection was reset before any answer" in section
