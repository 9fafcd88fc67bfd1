"""OAuth 2.0 error paths through HTTP: the authorization endpoint (RFC 6749 section 4.1.2.1)
and the token endpoint (section 5.2), in-process and over a real socket."""

from __future__ import annotations

import base64
import gzip

import httpx
import pytest
from starlette.applications import Starlette

from tests.support.oauth import (
    AUTHORIZE,
    CHALLENGE,
    CLIENT_ID,
    READ_USER,
    REDIRECT,
    SECRET,
    TOKEN,
    VERIFIER,
    authorize,
    code_for,
    exchange,
    oauth_error,
    redirected,
)


@pytest.fixture
def anon(both: httpx.Client) -> httpx.Client:
    """`both` without the default API key: OAuth endpoints need no bearer credential."""
    both.headers.pop("Authorization")
    return both


# --- authorize: errors answered here, never redirected ---------------------------------------


@pytest.mark.parametrize(
    ("params", "code", "param"),
    [
        ({"client_id": None}, "invalid_request", "client_id"),
        ({"client_id": ""}, "invalid_request", "client_id"),  # empty counts as omitted
        ({"client_id": "nope"}, "unauthorized_client", "client_id"),
        ({"redirect_uri": "http://127.0.0.1:8765/evil"}, "invalid_request", "redirect_uri"),
        ({"redirect_uri": REDIRECT + "/"}, "invalid_request", "redirect_uri"),  # exact match
        ({"redirect_uri": "https://127.0.0.1:8765/callback"}, "invalid_request", "redirect_uri"),
    ],
)
def test_authorize_with_untrusted_client_or_redirect_is_400(
    anon: httpx.Client, params: dict[str, str | None], code: str, param: str
) -> None:
    oauth_error(authorize(anon, **params), 400, code, param)


@pytest.mark.parametrize("name", ["client_id", "redirect_uri"])
def test_authorize_with_a_repeated_client_or_redirect_is_400(anon: httpx.Client, name: str) -> None:
    query = f"response_type=code&client_id={CLIENT_ID}&redirect_uri={REDIRECT}&{name}=x"
    oauth_error(anon.get(f"{AUTHORIZE}?{query}"), 400, "invalid_request", name)


def test_authorize_is_get_only(anon: httpx.Client) -> None:
    assert anon.post(AUTHORIZE, data={"client_id": CLIENT_ID}).status_code == 404


# --- authorize: errors redirected to the client ----------------------------------------------


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"response_type": None}, "invalid_request"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": "documents:read documents:delete"}, "invalid_scope"),
        ({"scope": "admin"}, "invalid_scope"),
        ({"scope": "audit:write", "login_hint": READ_USER}, "invalid_scope"),  # holds none
        ({"login_hint": "nobody@mock-us.example"}, "invalid_request"),
        ({"code_challenge": CHALLENGE, "code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": CHALLENGE}, "invalid_request"),  # plain by default: refused
        ({"code_challenge_method": "S256"}, "invalid_request"),
        ({"code_challenge": "short", "code_challenge_method": "S256"}, "invalid_request"),
        ({"code_challenge": "!" * 43, "code_challenge_method": "S256"}, "invalid_request"),
    ],
)
def test_authorize_errors_are_redirected_with_state(
    anon: httpx.Client, params: dict[str, str | None], code: str
) -> None:
    response = authorize(anon, **params)
    assert response.headers["cache-control"] == "no-store"
    query = redirected(response)
    assert query["error"] == code
    assert query["error_description"]
    assert query["state"] == "xyz"
    assert "code" not in query


def test_authorize_error_without_state_has_no_state(anon: httpx.Client) -> None:
    query = redirected(authorize(anon, state=None, response_type="token"))
    assert query == {
        "error": "unsupported_response_type",
        "error_description": "response_type 'token' is not supported: use 'code'.",
    }


def test_authorize_with_a_repeated_parameter_is_redirected(anon: httpx.Client) -> None:
    query = f"response_type=code&client_id={CLIENT_ID}&scope=a&scope=b&state=s"
    assert redirected(anon.get(f"{AUTHORIZE}?{query}"))["error"] == "invalid_request"


# --- token: client authentication (401 invalid_client) ---------------------------------------


def basic(client_id: str, secret: str) -> dict[str, str]:
    raw = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


@pytest.mark.parametrize(
    ("auth", "fields", "headers"),
    [
        ((CLIENT_ID, "wrong"), {}, {}),  # wrong secret, HTTP Basic
        ((CLIENT_ID, ""), {}, {}),
        (("nope", SECRET), {}, {}),  # unknown client
        (None, {"client_id": CLIENT_ID, "client_secret": "wrong"}, {}),  # wrong secret, form
        (None, {"client_id": CLIENT_ID}, {}),  # no secret: every client is confidential
        (None, {}, {}),  # no client authentication at all
        (None, {}, {"Authorization": "Bearer sk_test_mock_full"}),  # not Basic
        (None, {}, {"Authorization": "Basic !!!not-base64"}),
        (None, {}, {"Authorization": "Basic " + base64.b64encode(b"no-colon").decode()}),
        (None, {}, {"Authorization": "Basic " + base64.b64encode(b"\xff:\xfe").decode()}),
    ],
)
def test_failed_client_authentication_is_401_invalid_client(
    anon: httpx.Client,
    auth: tuple[str, str] | None,
    fields: dict[str, str],
    headers: dict[str, str],
) -> None:
    code = code_for(anon)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **fields}
    response = (
        anon.post(TOKEN, data=form, auth=auth, headers=headers)
        if auth
        else anon.post(TOKEN, data=form, headers=headers)
    )
    oauth_error(response, 401, "invalid_client")
    assert response.headers["www-authenticate"].startswith("Basic ")
    assert exchange(anon, code).status_code == 200  # the code was not used up


def test_form_credentials_work(anon: httpx.Client) -> None:
    response = exchange(anon, code_for(anon), auth=None, client_id=CLIENT_ID, client_secret=SECRET)
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"client_secret": SECRET}, "client_secret"),  # two authentication methods at once
        ({"client_id": "someone_else"}, "client_id"),
    ],
)
def test_basic_and_conflicting_form_credentials_are_400(
    anon: httpx.Client, fields: dict[str, str], param: str
) -> None:
    oauth_error(exchange(anon, code_for(anon), **fields), 400, "invalid_request", param)


def test_basic_with_the_same_client_id_in_the_form_is_fine(anon: httpx.Client) -> None:
    assert exchange(anon, code_for(anon), client_id=CLIENT_ID).status_code == 200


# --- token: the grant (400) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "code", "param"),
    [
        ({"grant_type": None}, "invalid_request", "grant_type"),
        ({"grant_type": "refresh_token"}, "unsupported_grant_type", "grant_type"),
        ({"grant_type": "client_credentials"}, "unsupported_grant_type", "grant_type"),
        ({"grant_type": "password"}, "unsupported_grant_type", "grant_type"),
        ({"code": None}, "invalid_request", "code"),
        ({"code": "oac_unknown"}, "invalid_grant", "code"),
        ({"redirect_uri": "http://127.0.0.1:8765/evil"}, "invalid_grant", "redirect_uri"),
        ({"redirect_uri": None}, "invalid_grant", "redirect_uri"),  # authorize named one
        ({"code_verifier": VERIFIER}, "invalid_grant", "code_verifier"),  # no challenge
    ],
)
def test_token_grant_errors(
    anon: httpx.Client, fields: dict[str, str | None], code: str, param: str
) -> None:
    valid = code_for(anon)
    response = exchange(anon, **{"code": valid, **fields})
    oauth_error(response, 400, code, param)
    assert exchange(anon, valid).status_code == 200  # a failed exchange leaves the code usable


def test_reused_code_is_invalid_grant_and_revokes_its_token(anon: httpx.Client) -> None:
    code = code_for(anon)
    token = exchange(anon, code).json()["access_token"]
    error = oauth_error(exchange(anon, code), 400, "invalid_grant", "code")
    assert "already been used" in error["message"]
    response = anon.get("/v1/whoami", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    oauth_error(exchange(anon, code), 400, "invalid_grant", "code")  # and stays refused


def test_expired_code_is_invalid_grant(anon: httpx.Client, fresh_app: Starlette) -> None:
    code = code_for(anon)
    fresh_app.state.store.clock.advance(600)
    error = oauth_error(exchange(anon, code), 400, "invalid_grant", "code")
    assert "expired" in error["message"]


@pytest.mark.parametrize(
    ("verifier", "code"),
    [
        (None, "invalid_grant"),
        ("x" * 43, "invalid_grant"),  # well formed, wrong
        (VERIFIER[:-1] + "l", "invalid_grant"),
        ("short", "invalid_request"),
        (VERIFIER + "!", "invalid_request"),
    ],
)
def test_pkce_verifier_errors(anon: httpx.Client, verifier: str | None, code: str) -> None:
    valid = code_for(anon, code_challenge=CHALLENGE, code_challenge_method="S256")
    oauth_error(exchange(anon, valid, code_verifier=verifier), 400, code, "code_verifier")
    assert exchange(anon, valid, code_verifier=VERIFIER).status_code == 200


# --- token: the request itself ---------------------------------------------------------------


def test_json_body_is_invalid_request(anon: httpx.Client) -> None:
    body = {"grant_type": "authorization_code", "code": code_for(anon), "redirect_uri": REDIRECT}
    oauth_error(anon.post(TOKEN, json=body, auth=(CLIENT_ID, SECRET)), 400, "invalid_request")


def test_repeated_form_field_is_invalid_request(anon: httpx.Client) -> None:
    body = f"grant_type=authorization_code&code={code_for(anon)}&code=oac_other"
    response = anon.post(
        TOKEN,
        content=body,
        auth=(CLIENT_ID, SECRET),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    oauth_error(response, 400, "invalid_request", "code")


def test_form_that_is_not_utf8_is_invalid_request(anon: httpx.Client) -> None:
    response = anon.post(
        TOKEN,
        content=b"grant_type=authorization_code&code=%ff%fe",
        auth=(CLIENT_ID, SECRET),
        headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
    )
    oauth_error(response, 400, "invalid_request")


def test_form_with_too_many_fields_is_invalid_request(anon: httpx.Client) -> None:
    body = "&".join(f"f{i}=x" for i in range(101))
    response = anon.post(
        TOKEN,
        content=body,
        auth=(CLIENT_ID, SECRET),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    oauth_error(response, 400, "invalid_request")


def test_form_without_content_type_is_read_as_a_form(anon: httpx.Client) -> None:
    body = f"grant_type=authorization_code&code={code_for(anon)}&redirect_uri={REDIRECT}"
    response = anon.post(TOKEN, content=body.encode(), auth=(CLIENT_ID, SECRET))
    assert "content-type" not in response.request.headers
    assert response.status_code == 200


def test_a_compressed_form_is_400_and_spends_no_code(anon: httpx.Client) -> None:
    body = f"grant_type=authorization_code&code={code_for(anon)}&redirect_uri={REDIRECT}"
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    response = anon.post(
        TOKEN,
        content=gzip.compress(body.encode()),
        auth=(CLIENT_ID, SECRET),
        headers={**headers, "Content-Encoding": "gzip"},
    )
    oauth_error(response, 400, "invalid_request")
    issued = anon.post(TOKEN, content=body.encode(), auth=(CLIENT_ID, SECRET), headers=headers)
    assert issued.status_code == 200, issued.text


def test_oversized_form_is_413(anon: httpx.Client) -> None:
    response = anon.post(
        TOKEN,
        content=b"code=" + b"a" * (1024 * 1024),
        auth=(CLIENT_ID, SECRET),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    oauth_error(response, 413, "invalid_request")


def test_token_endpoint_is_post_only(anon: httpx.Client) -> None:
    assert anon.get(TOKEN).status_code == 404
