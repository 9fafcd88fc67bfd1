"""The inspector cannot be framed: every answer to a `/_mock/ui` URL (pages, the live state,
static files, the sign-in page, the forms' redirects, the envelopes of its errors and of the
guard's refusals) carries `X-Frame-Options: DENY` and `Content-Security-Policy:
frame-ancestors 'none'`, so a browser never shows it inside another page, where a disguised
click would press its buttons with the inspector's own origin. The JSON control plane and the
API are not pages and keep their headers as they were."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import auth

UI = "/_mock/ui"
BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
FRAME = {**BROWSER, "Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate"}

# (method, path, form, headers, the status it answers): one of each kind of answer.
ANSWERS = [
    ("GET", UI, None, FRAME, 200),
    ("GET", f"{UI}/requests", None, FRAME, 200),
    ("GET", f"{UI}/requests/1", None, {}, 200),
    ("GET", f"{UI}/webhooks", None, {}, 200),
    ("GET", f"{UI}/resources", None, {}, 200),
    ("GET", f"{UI}/audit", None, {}, 200),
    ("GET", f"{UI}/state", None, {}, 200),
    ("GET", f"{UI}/static/inspector.css", None, {}, 200),
    ("GET", f"{UI}/static/inspector.js", None, {}, 200),
    ("GET", f"{UI}/login", None, {}, 200),
    ("POST", f"{UI}/clock/advance", {"seconds": "60"}, {}, 303),
    ("POST", f"{UI}/reset", {}, {}, 303),
    ("GET", f"{UI}/requests?status=abc", None, {}, 422),
    ("GET", f"{UI}/requests/999999", None, {}, 404),
    ("GET", f"{UI}/static/secret.txt", None, {}, 404),
    ("GET", f"{UI}/no-such-page", None, {}, 404),
    ("GET", f"{UI}/requests/", None, {}, 307),
    ("POST", f"{UI}/clock/advance", {"seconds": "1"}, {"Origin": "https://evil.example"}, 403),
    ("GET", UI, None, {"Host": "evil.example"}, 403),
]


def assert_unframeable(response: httpx.Response) -> None:
    assert response.headers.get_list("x-frame-options") == ["DENY"], response.headers
    policy = response.headers.get_list("content-security-policy")
    assert policy == ["frame-ancestors 'none'"], response.headers


@pytest.mark.parametrize(
    ("method", "path", "form", "headers", "status"),
    ANSWERS,
    ids=[f"{a[0]} {a[1]} {a[4]}" for a in ANSWERS],
)
def test_every_inspector_answer_forbids_framing(
    both: httpx.Client,
    method: str,
    path: str,
    form: dict[str, str] | None,
    headers: dict[str, str],
    status: int,
) -> None:
    both.get("/v1/whoami")  # the journal's first entry, for /requests/1
    response = both.request(method, path, data=form, headers=headers, follow_redirects=False)
    assert response.status_code == status, response.text
    assert_unframeable(response)


def test_the_json_control_plane_and_the_api_keep_their_headers(api: httpx.Client) -> None:
    for path in ("/_mock/clock", "/_mock/uix", "/v1/whoami"):
        response = api.get(path)
        assert "x-frame-options" not in response.headers, path
        assert "content-security-policy" not in response.headers, path


@pytest.fixture(scope="module")
def guarded_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", admin_token="s3cret"))


@pytest.fixture
def guarded(guarded_app: Starlette) -> Iterator[httpx.Client]:
    guarded_app.state.store.reset()
    with inprocess_client(guarded_app, headers=auth()) as client:
        yield client


def test_with_an_admin_token_the_sign_in_flow_forbids_framing(guarded: httpx.Client) -> None:
    """The token's refusal, the redirect to sign in, the sign-in page, a wrong token and the
    redirect after the right one: none may be shown in a frame."""
    answers = [
        (guarded.get(UI), 401),
        (guarded.get(UI, headers=FRAME), 303),
        (guarded.get(f"{UI}/login", headers=FRAME), 200),
        (guarded.post(f"{UI}/login", data={"token": "guess"}), 401),
        (guarded.post(f"{UI}/login", data={"token": "s3cret"}), 303),
        (guarded.get(UI, headers=BROWSER), 200),
    ]
    for response, status in answers:
        assert response.status_code == status, response.text
        assert_unframeable(response)
