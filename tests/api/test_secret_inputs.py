"""Wrong secrets of every shape are plain wrong values: a non-ASCII, odd-length, empty or very
long signature, admin token, cursor, client secret, PKCE verifier, code or access token gets the
endpoint's documented 4xx, never a 500 (constant-time comparisons once raised TypeError)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.exports import completed
from tests.support.oauth import CHALLENGE, CLIENT_ID, SECRET, code_for, exchange, oauth_error

# Shapes a fuzzer tries: non-ASCII (Latin-1 and beyond), an odd length, empty, very long (as
# long as the 8 KiB query string limit lets a query parameter be).
WRONG = ["\u00e9" * 64, "\u2603\U0001f600", "abc", "0" * 63, "", "f" * 8_000]
WRONG_IDS = ["latin1", "astral", "short", "odd-length", "empty", "very-long"]


@pytest.mark.parametrize("signature", WRONG, ids=WRONG_IDS)
def test_export_download_signature(api: httpx.Client, signature: str) -> None:
    job = completed(api)
    parts = urlsplit(job["download_url"])
    expires = parse_qs(parts.query)["expires"][0]
    response = api.get(parts.path, params={"expires": expires, "signature": signature})
    assert_envelope(response, 403, "permission_error")


def test_export_download_signature_of_undecodable_bytes(api: httpx.Client) -> None:
    job = completed(api)
    parts = urlsplit(job["download_url"])
    expires = parse_qs(parts.query)["expires"][0]
    response = api.get(f"{parts.path}?expires={expires}&signature=%ff%fe%ed%a0%80")
    assert_envelope(response, 400, "bad_request")
    assert api.get(job["download_url"]).status_code == 200  # the real URL still works


@pytest.fixture(scope="module")
def guarded_app() -> object:
    return create_app(Settings(clock_mode="frozen", admin_token="s3cret"))


@pytest.fixture
def guarded(guarded_app: object) -> Iterator[httpx.Client]:
    with inprocess_client(guarded_app) as client:  # type: ignore[arg-type]
        yield client


@pytest.mark.parametrize(
    "token",
    [b"\xe9" * 6, b"s3cre\xff", b"s3cre", b"s3cret" + b"x" * 8_000, b"", "s3cr\u00e9t".encode()],
    ids=["latin1", "near-latin1", "prefix", "very-long", "empty", "utf8"],
)
def test_admin_token_header(guarded: httpx.Client, token: bytes) -> None:
    response = guarded.get("/_mock/clock", headers={"X-Mock-Admin-Token": token})
    assert_envelope(response, 401, "authentication_error")
    assert guarded.get("/_mock/clock", headers={"X-Mock-Admin-Token": "s3cret"}).status_code == 200


@pytest.mark.parametrize(
    "token", [b"\xe9t\xe9", b"x" * 5_000, b""], ids=["latin1", "very-long", "empty"]
)
def test_admin_token_cookie(guarded: httpx.Client, token: bytes) -> None:
    response = guarded.get("/_mock/ui/state", headers={"Cookie": b"mock_admin_token=" + token})
    assert_envelope(response, 401, "authentication_error")


@pytest.mark.parametrize("token", ["\u00e9t\u00e9", "\U0001f600", "x" * 5_000, "s3cre"])
def test_admin_token_login_form(guarded: httpx.Client, token: str) -> None:
    response = guarded.post("/_mock/ui/login", data={"token": token})
    assert response.status_code == 401, response.text
    assert "text/html" in response.headers["content-type"]


@pytest.mark.parametrize(
    "cursor",
    [*WRONG, "cur_" + "\u00e9" * 24, "cur_" + "A" * 23, "cur_" + "A" * 25, "cur_" + "=" * 24],
    ids=[*WRONG_IDS, "prefixed-non-ascii", "prefixed-odd", "prefixed-long", "padding"],
)
def test_cursor(api: httpx.Client, cursor: str) -> None:
    response = api.get("/v1/documents", params={"cursor": cursor})
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == "cursor"


@pytest.mark.parametrize("secret", [s for s in WRONG if s], ids=WRONG_IDS[:4] + WRONG_IDS[5:])
def test_client_secret_form_field(api: httpx.Client, secret: str) -> None:
    code = code_for(api)
    response = exchange(api, code, auth=None, client_id=CLIENT_ID, client_secret=secret)
    oauth_error(response, 401, "invalid_client")
    assert exchange(api, code).status_code == 200  # a failed exchange leaves the code usable


@pytest.mark.parametrize("secret", WRONG, ids=WRONG_IDS)
def test_client_secret_basic(api: httpx.Client, secret: str) -> None:
    response = exchange(api, code_for(api), auth=(CLIENT_ID, secret))
    oauth_error(response, 401, "invalid_client")


def test_client_secret_empty_form_field(api: httpx.Client) -> None:
    response = exchange(api, code_for(api), auth=None, client_id=CLIENT_ID, client_secret="")
    oauth_error(response, 401, "invalid_client")


@pytest.mark.parametrize(
    ("verifier", "oauth_code"),
    [
        ("\u00e9" * 43, "invalid_request"),
        ("a" * 43, "invalid_grant"),  # well formed, odd length, wrong
        ("a" * 128, "invalid_grant"),
        ("a" * 129, "invalid_request"),
        ("a" * 20_000, "invalid_request"),
    ],
    ids=["non-ascii", "odd-length", "longest", "too-long", "very-long"],
)
def test_pkce_verifier(api: httpx.Client, verifier: str, oauth_code: str) -> None:
    code = code_for(api, code_challenge=CHALLENGE, code_challenge_method="S256")
    response = exchange(api, code, code_verifier=verifier)
    oauth_error(response, 400, oauth_code, "code_verifier")


@pytest.mark.parametrize("code", [s for s in WRONG if s], ids=WRONG_IDS[:4] + WRONG_IDS[5:])
def test_authorization_code(api: httpx.Client, code: str) -> None:
    oauth_error(exchange(api, code), 400, "invalid_grant", "code")
    oauth_error(exchange(api, "oac_" + code), 400, "invalid_grant", "code")


@pytest.mark.parametrize(
    "token",
    [b"oat_\xe9\xff", b"oat_", b"oat_" + b"a" * 31, b"oat_" + b"a" * 20_000, b"sk_test_\xe9"],
    ids=["non-ascii", "empty", "odd-length", "very-long", "key-non-ascii"],
)
def test_access_token(fresh_app: object, token: bytes) -> None:
    with inprocess_client(fresh_app) as client:  # type: ignore[arg-type]
        response = client.get("/v1/whoami", headers={"Authorization": b"Bearer " + token})
    assert_envelope(response, 401, "authentication_error")


def test_right_values_still_work(api: httpx.Client) -> None:
    assert exchange(api, code_for(api), auth=(CLIENT_ID, SECRET)).status_code == 200
