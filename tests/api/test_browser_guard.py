"""The control plane's browser guard: with no admin token, a `/_mock` request a web page could
send (a foreign `Origin`, or a `Host` that is not loopback: DNS rebinding) is 403 and changes
nothing; scripts, loopback origins and the inspector's own pages pass; with a token, the token
decides. Each test runs in-process and over a real socket (`both`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth

EVIL = "https://evil.example"
PLAIN = {"Content-Type": "text/plain"}  # a "simple" request: a browser sends it unpreflighted
CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}

# (method, path, headers, body): what a page on another site, or one rebound to this machine,
# could send; `param` is the header the refusal names.
ATTACKS = [
    ("POST", "/_mock/reset", {"Origin": EVIL, **PLAIN}, b"{}", "Origin"),
    ("POST", "/_mock/reset", {"Origin": EVIL}, b"", "Origin"),
    ("POST", "/_mock/reset", {"Origin": "null", **PLAIN}, b"{}", "Origin"),
    ("POST", "/_mock/reset", {"Origin": "http://evil.example:8080"}, b"{}", "Origin"),
    ("POST", "/_mock/reset", {"Origin": "not an origin"}, b"{}", "Origin"),
    ("POST", "/_mock/reset", {"Host": "evil.example"}, b"{}", "Host"),
    ("POST", "/_mock/reset", {"Host": "10.0.0.5:8080"}, b"{}", "Host"),
    ("POST", "/_mock/scenarios", {"Origin": EVIL, **PLAIN}, b'{"name": "legal_hold"}', "Origin"),
    ("POST", "/_mock/scenarios", {"Host": "evil.example"}, b'{"name": "legal_hold"}', "Host"),
    ("GET", "/_mock/requests", {"Origin": EVIL}, b"", "Origin"),
    ("GET", "/_mock/requests", {"Host": "evil.example"}, b"", "Host"),
    ("GET", "/_mock/requests", {"Host": "10.0.0.5:8080"}, b"", "Host"),
    ("POST", "/_mock/clock/advance", {"Origin": EVIL, **PLAIN}, b'{"seconds": 60}', "Origin"),
    ("POST", "/_mock/ui/reset", {"Origin": EVIL}, b"", "Origin"),
    ("GET", "/_mock/ui/requests", {"Host": "evil.example"}, b"", "Host"),
    ("GET", "/_mock/no-such-endpoint", {"Origin": EVIL}, b"", "Origin"),
    # A browser names the requesting page's site in Sec-Fetch-Site, Origin or not: a link
    # followed, a GET form, an image, a framed inspector's first load.
    ("GET", "/_mock/requests", CROSS_SITE, b"", "Sec-Fetch-Site"),
    ("POST", "/_mock/reset", {**CROSS_SITE, **PLAIN}, b"{}", "Sec-Fetch-Site"),
    ("POST", "/_mock/clock/advance", CROSS_SITE, b'{"seconds": 60}', "Sec-Fetch-Site"),
    ("GET", "/_mock/ui", {**CROSS_SITE, "Sec-Fetch-Dest": "iframe"}, b"", "Sec-Fetch-Site"),
    ("POST", "/_mock/ui/reset", CROSS_SITE, b"", "Sec-Fetch-Site"),
]


def _state(client: httpx.Client) -> dict[str, Any]:
    """What a refused request must leave as it was: the clock, scenarios, journal, snapshots."""
    return {
        "clock": client.get("/_mock/clock").json(),
        "scenarios": client.get("/_mock/scenarios").json()["data"],
        "journal": client.get("/_mock/requests").json()["data"],
        "snapshots": client.get("/_mock/snapshots").json()["data"],
    }


@pytest.mark.parametrize(
    ("method", "path", "headers", "body", "param"),
    ATTACKS,
    ids=[f"{a[0]} {a[1]} {a[4]}={a[2].get(a[4])}" for a in ATTACKS],
)
def test_a_request_from_a_web_page_is_refused_and_changes_nothing(
    both: httpx.Client, method: str, path: str, headers: dict[str, str], body: bytes, param: str
) -> None:
    vault = both.post("/v1/vaults", json={"name": "Kept", "region": "us"}).json()["id"]
    before = _state(both)
    refused = both.request(method, path, headers=headers, content=body)
    error = assert_envelope(refused, 403, "permission_error")
    assert error["param"] == param
    assert "/_mock control plane refuses" in error["message"]
    assert "--admin-token" in error["message"]
    assert _state(both) == before
    assert both.get(f"/v1/vaults/{vault}").status_code == 200  # no reset happened


def test_the_refusal_says_what_it_refused(both: httpx.Client) -> None:
    by_origin = both.post("/_mock/reset", headers={"Origin": EVIL}).json()["error"]["message"]
    assert by_origin.startswith(
        "The /_mock control plane refuses requests from web pages (Origin 'https://evil.example')"
    )
    by_host = both.get("/_mock/requests", headers={"Host": "evil.example"}).json()["error"]
    assert by_host["message"].startswith(
        "The /_mock control plane refuses Host 'evil.example' (not a loopback name"
    )


def test_a_snapshot_upload_from_a_web_page_is_refused(both: httpx.Client) -> None:
    both.delete("/_mock/snapshots/planted")  # a reset keeps snapshots: the app is shared
    both.post("/_mock/snapshots", json={"name": "base"})
    data = both.get("/_mock/snapshots/base/download").content
    before = _state(both)
    for headers in ({"Origin": EVIL, **PLAIN}, {"Host": "evil.example"}):
        refused = both.post(
            "/_mock/snapshots/upload", params={"name": "planted"}, headers=headers, content=data
        )
        assert_envelope(refused, 403, "permission_error")
    assert _state(both) == before
    assert "planted" not in [s["name"] for s in before["snapshots"]]
    accepted = both.post("/_mock/snapshots/upload", params={"name": "planted"}, content=data)
    assert accepted.status_code == 201, accepted.text  # the same file, from a script
    for name in ("base", "planted"):
        both.delete(f"/_mock/snapshots/{name}")


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Origin": "http://localhost:8080"},
        {"Origin": "http://127.0.0.1:8080"},
        {"Origin": "http://[::1]:8080"},
        {"Origin": "http://app.localhost:3000"},
        {"Origin": "https://LOCALHOST"},
        {"Host": "localhost:8080"},
        {"Host": "127.0.0.2"},
        {"Host": "[::1]:8080"},
        {"Host": "eu.localhost:8080"},
        {"Host": "localhost", "Origin": "http://localhost"},
    ],
    ids=lambda headers: ",".join(f"{k}={v}" for k, v in headers.items()) or "no Origin",
)
def test_scripts_and_loopback_origins_pass(both: httpx.Client, headers: dict[str, str]) -> None:
    vault = both.post("/v1/vaults", json={"name": "Gone", "region": "us"}).json()["id"]
    assert both.get("/_mock/requests", headers=headers).status_code == 200
    loaded = both.post("/_mock/scenarios", headers=headers, json={"name": "legal_hold"})
    assert loaded.status_code == 201, loaded.text
    reset = both.post("/_mock/reset", headers={**headers, **PLAIN}, content=b"{}")
    assert reset.status_code == 200, reset.text
    assert both.get(f"/v1/vaults/{vault}").status_code == 404
    assert both.get("/_mock/scenarios").json()["data"] == []
    assert both.get("/_mock/ui", headers=headers).status_code == 200


def test_the_inspector_forms_work_from_their_own_page(both: httpx.Client) -> None:
    """A browser on the inspector sends its own origin, the server's address, on a form POST."""
    origin = str(both.base_url).rstrip("/")
    before = both.get("/_mock/clock").json()["now"]
    moved = both.post("/_mock/ui/clock/advance", data={"seconds": "60"}, headers={"Origin": origin})
    assert moved.status_code == 303, moved.text
    assert both.get("/_mock/clock").json()["now"] != before


def test_the_refusal_of_another_site_says_so(both: httpx.Client) -> None:
    refused = both.get("/_mock/requests", headers={"Sec-Fetch-Site": "cross-site"})
    assert assert_envelope(refused, 403, "permission_error")["message"] == (
        "The /_mock control plane refuses requests from web pages of another site "
        "(Sec-Fetch-Site 'cross-site'): open it at its own address or call it from a script, "
        "or start the server with --admin-token and send X-Mock-Admin-Token."
    )


@pytest.mark.parametrize("site", ["same-origin", "same-site", "none"])
def test_what_a_browser_sends_for_the_inspector_itself_passes(
    both: httpx.Client, site: str
) -> None:
    """A typed address or a bookmark (`none`), the inspector's own links, forms and live
    refresh (`same-origin`), a loopback page of another port (`same-site`, as its `Origin`
    already passes)."""
    origin = str(both.base_url).rstrip("/")
    navigate = {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert both.get("/_mock/ui", headers=navigate).status_code == 200
    assert both.get("/_mock/ui/state", headers={"Sec-Fetch-Site": site}).status_code == 200
    assert both.get("/_mock/clock", headers={"Sec-Fetch-Site": site}).status_code == 200
    if site == "same-origin":
        form = {**navigate, "Origin": origin}
        moved = both.post("/_mock/ui/clock/advance", data={"seconds": "60"}, headers=form)
        assert moved.status_code == 303, moved.text


def test_the_api_ignores_the_guard(both: httpx.Client) -> None:
    """The guard is the control plane's: `/v1` answers a page's requests as the real service
    does."""
    for headers in ({"Origin": EVIL}, {"Host": "evil.example"}, CROSS_SITE):
        assert both.get("/v1/whoami", headers=headers).status_code == 200


@pytest.fixture
def token_app_client() -> Iterator[httpx.Client]:
    app = create_app(Settings(clock_mode="frozen", admin_token="s3cret"))
    with inprocess_client(app, headers=auth()) as client:
        yield client


@pytest.mark.parametrize(
    "headers",
    [{"Origin": EVIL, **PLAIN}, {"Origin": "null"}, {"Host": "evil.example"}, CROSS_SITE],
)
def test_with_an_admin_token_the_token_decides(
    token_app_client: httpx.Client, headers: dict[str, str]
) -> None:
    without = token_app_client.post("/_mock/clock/advance", headers=headers, content=b"{}")
    assert_envelope(without, 401, "authentication_error")
    token = {**headers, "X-Mock-Admin-Token": "s3cret"}
    moved = token_app_client.post("/_mock/clock/advance", headers=token, content=b'{"seconds": 60}')
    assert moved.status_code == 200, moved.text
    assert token_app_client.get("/_mock/requests", headers=token).status_code == 200


def test_an_empty_admin_token_guards_nothing_so_the_browser_guard_stays() -> None:
    app = create_app(Settings(clock_mode="frozen", admin_token=""))
    with inprocess_client(app) as client:
        refused = client.post("/_mock/reset", headers={"Origin": EVIL})
        assert_envelope(refused, 403, "permission_error")
        assert client.post("/_mock/reset").status_code == 200
