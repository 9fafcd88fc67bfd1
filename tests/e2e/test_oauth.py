"""OAuth 2.0: the whole authorization-code flow driven by a real client library (authlib's
OAuth2Session over a real socket), and access tokens used as bearer credentials."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session, OAuthError
from starlette.applications import Starlette

from mockserver.core.clock import Clock
from mockserver.domain.models import READ_SCOPES, SCOPES
from mockserver.testing.live import LiveServer
from tests.support.api import assert_envelope
from tests.support.oauth import (
    AUTHORIZE,
    CLIENT_ID,
    PARTIAL_USER,
    READ_USER,
    REDIRECT,
    SECRET,
    TOKEN,
    bearer,
    code_for,
    exchange,
    redirected,
    token_for,
)

SessionFactory = Callable[..., OAuth2Session]


@pytest.fixture
def clock(fresh_app: Starlette) -> Clock:
    """The frozen mock clock; `advance` it to expire codes and tokens."""
    mock_clock: Clock = fresh_app.state.store.clock
    return mock_clock


@pytest.fixture
def base_url(live_server: LiveServer, fresh_app: Starlette) -> str:
    return live_server.base_url


@pytest.fixture
def session(base_url: str) -> Iterator[SessionFactory]:
    """Make authlib sessions for the default seed's client; each is closed after the test."""
    made: list[OAuth2Session] = []

    def make(client_secret: str = SECRET, **kwargs: Any) -> OAuth2Session:
        kwargs.setdefault("redirect_uri", REDIRECT)
        oauth = OAuth2Session(CLIENT_ID, client_secret, **kwargs)
        made.append(oauth)
        return oauth

    yield make
    for oauth in made:
        oauth.close()


def login(oauth: OAuth2Session, base_url: str, **params: str) -> str:
    """Run the authorization step as a browser would, without following the redirect; return
    the callback URL the app would receive."""
    url, _state = oauth.create_authorization_url(base_url + AUTHORIZE, **params)
    response = oauth.get(url, allow_redirects=False, withhold_token=True)
    assert response.status_code == 302, response.text
    location: str = response.headers["location"]
    assert location.startswith(REDIRECT + "?")
    return location


def error_of(info: pytest.ExceptionInfo[OAuthError]) -> dict[str, str]:
    """authlib puts the service's whole `error` object in OAuthError.error."""
    error: dict[str, str] = info.value.error  # type: ignore[assignment]
    return error


# --- the flow with authlib -------------------------------------------------------------------


def test_authlib_completes_the_flow_with_basic_auth(session: SessionFactory, base_url: str) -> None:
    oauth = session()
    callback = login(oauth, base_url)
    token = oauth.fetch_token(base_url + TOKEN, authorization_response=callback)
    assert token["access_token"].startswith("oat_")
    assert token["token_type"] == "Bearer"
    assert token["expires_in"] == 3600
    assert token["scope"] == " ".join(sorted(SCOPES))  # the first user holds every scope
    whoami = oauth.get(base_url + "/v1/whoami").json()
    assert whoami == {
        "account_id": "acct_mock_us",
        "region": "us",
        "environment": "sandbox",
        "scopes": sorted(SCOPES),
        "rate_limit": 120,
    }
    assert oauth.get(base_url + "/v1/documents/doc_mock_draft").status_code == 200


def test_authlib_completes_the_flow_with_pkce(session: SessionFactory, base_url: str) -> None:
    oauth = session(code_challenge_method="S256", scope="documents:read vaults:write")
    verifier = generate_token(64)
    callback = login(oauth, base_url, code_verifier=verifier, login_hint=READ_USER)
    with pytest.raises(OAuthError) as info:  # the code is bound to the challenge
        oauth.fetch_token(base_url + TOKEN, authorization_response=callback)
    assert error_of(info)["code"] == "invalid_grant"
    token = oauth.fetch_token(
        base_url + TOKEN, authorization_response=callback, code_verifier=verifier
    )
    assert token["scope"] == "documents:read"  # the read-only user cannot grant vaults:write
    response = oauth.get(base_url + "/v1/whoami")
    assert response.json()["scopes"] == ["documents:read"]


def test_authlib_client_secret_post(session: SessionFactory, base_url: str) -> None:
    oauth = session(token_endpoint_auth_method="client_secret_post")
    callback = login(oauth, base_url)
    token = oauth.fetch_token(base_url + TOKEN, authorization_response=callback)
    assert oauth.get(base_url + "/v1/whoami").status_code == 200
    assert token["expires_in"] == 3600


def test_authlib_wrong_secret_is_invalid_client(session: SessionFactory, base_url: str) -> None:
    oauth = session(client_secret="not_the_secret")
    callback = login(oauth, base_url)
    with pytest.raises(OAuthError) as info:
        oauth.fetch_token(base_url + TOKEN, authorization_response=callback)
    assert error_of(info)["code"] == "invalid_client"
    assert error_of(info)["type"] == "authentication_error"


def test_authlib_wrong_redirect_uri_is_refused(session: SessionFactory, base_url: str) -> None:
    oauth = session(redirect_uri="http://127.0.0.1:8765/elsewhere")
    url, _state = oauth.create_authorization_url(base_url + AUTHORIZE)
    response = oauth.get(url, allow_redirects=False, withhold_token=True)
    assert response.status_code == 400  # never redirected to an unregistered URI
    assert response.json()["error"]["code"] == "invalid_request"
    # and a token request naming another URI than the authorization request did
    oauth = session()
    callback = login(oauth, base_url)
    with pytest.raises(OAuthError) as info:
        oauth.fetch_token(
            base_url + TOKEN,
            authorization_response=callback,
            redirect_uri="http://127.0.0.1:8765/elsewhere",
        )
    assert error_of(info)["code"] == "invalid_grant"


def test_authlib_reused_code_is_invalid_grant_and_revokes_the_token(
    session: SessionFactory, base_url: str
) -> None:
    oauth = session()
    callback = login(oauth, base_url)
    oauth.fetch_token(base_url + TOKEN, authorization_response=callback)
    first = oauth.token
    with pytest.raises(OAuthError) as info:
        oauth.fetch_token(base_url + TOKEN, authorization_response=callback)
    assert error_of(info)["code"] == "invalid_grant"
    oauth.token = first
    response = oauth.get(base_url + "/v1/whoami")
    assert response.status_code == 401
    assert "revoked" in response.json()["error"]["message"]


def test_authlib_expired_code_is_invalid_grant(
    session: SessionFactory, base_url: str, clock: Clock
) -> None:
    oauth = session()
    callback = login(oauth, base_url)
    clock.advance(600)  # codes live ten minutes of mock time
    with pytest.raises(OAuthError) as info:
        oauth.fetch_token(base_url + TOKEN, authorization_response=callback)
    assert error_of(info)["code"] == "invalid_grant"
    assert "expired" in error_of(info)["message"]


def test_authlib_unsupported_grant_type(session: SessionFactory, base_url: str) -> None:
    oauth = session()
    with pytest.raises(OAuthError) as info:
        oauth.fetch_token(base_url + TOKEN, grant_type="client_credentials")
    assert error_of(info)["code"] == "unsupported_grant_type"


def test_authlib_expired_token_is_401(session: SessionFactory, base_url: str, clock: Clock) -> None:
    oauth = session()
    oauth.fetch_token(base_url + TOKEN, authorization_response=login(oauth, base_url))
    clock.advance(3599)
    assert oauth.get(base_url + "/v1/whoami").status_code == 200
    clock.advance(1)
    response = oauth.get(base_url + "/v1/whoami")
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"
    assert "expired" in response.json()["error"]["message"]


def test_readme_example_runs(base_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    guide = Path(__file__).resolve().parents[2] / "docs" / "guides" / "oauth.md"
    example = re.search(r"```python\n(.*?)```", guide.read_text(encoding="utf-8"), re.S)
    assert example is not None
    namespace: dict[str, Any] = {}
    source = example[1].replace("http://127.0.0.1:8080", base_url)
    try:
        exec(compile(source, "docs/guides/oauth.md", "exec"), namespace)
    finally:
        namespace["oauth"].close()
    printed = capsys.readouterr().out
    assert printed == "documents:read vaults:read 3600\n['documents:read', 'vaults:read']\n"


# --- tokens as credentials -------------------------------------------------------------------


@pytest.fixture
def anon(both: httpx.Client) -> httpx.Client:
    """`both` without the default API key: OAuth endpoints need no bearer credential."""
    both.headers.pop("Authorization")
    return both


def test_token_scopes_are_the_users_permissions_intersected(anon: httpx.Client) -> None:
    token = token_for(anon, login_hint=READ_USER)
    assert anon.get("/v1/whoami", headers=bearer(token)).json()["scopes"] == sorted(READ_SCOPES)
    token = token_for(anon, login_hint=PARTIAL_USER, scope="documents:write audit:read")
    assert anon.get("/v1/whoami", headers=bearer(token)).json()["scopes"] == ["documents:write"]


def test_token_scopes_are_enforced(anon: httpx.Client) -> None:
    token = token_for(anon, login_hint=READ_USER)
    assert anon.get("/v1/vaults", headers=bearer(token)).status_code == 200
    response = anon.post(
        "/v1/documents", json={"title": "x", "vault_id": "vault_mock_us"}, headers=bearer(token)
    )
    error = assert_envelope(response, 403, "permission_error")
    assert "documents:write" in error["message"]


def test_token_reaches_the_sandbox_on_every_host(anon: httpx.Client) -> None:
    token = bearer(token_for(anon))
    assert (
        anon.get("/eu/v1/whoami", headers=token).json()
        == anon.get("/v1/whoami", headers=token).json()
    )
    assert anon.get("/eu/v1/vaults/vault_mock_eu", headers=token).status_code == 200
    assert anon.get("/v1/vaults/vault_mock_eu", headers=token).status_code == 404  # residency


def test_token_responses_are_not_cached(anon: httpx.Client) -> None:
    response = exchange(anon, code_for(anon))
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-request-id"].startswith("req_")
    assert set(response.json()) == {"access_token", "token_type", "expires_in", "scope"}


def test_unknown_token_is_401_and_masked(anon: httpx.Client) -> None:
    fake = "oat_" + "a" * 32
    error = assert_envelope(
        anon.get("/v1/whoami", headers=bearer(fake)), 401, "authentication_error"
    )
    assert fake not in error["message"]
    assert "access token" in error["message"]


def test_reset_forgets_tokens(anon: httpx.Client, fresh_app: Starlette) -> None:
    token = token_for(anon)
    fresh_app.state.store.reset()
    assert anon.get("/v1/whoami", headers=bearer(token)).status_code == 401


def test_codes_and_tokens_are_deterministic(anon: httpx.Client, fresh_app: Starlette) -> None:
    first = exchange(anon, code_for(anon)).json()
    fresh_app.state.store.reset()
    code = code_for(anon)
    assert exchange(anon, code).json() == first
    assert code.startswith("oac_")


def test_code_lives_until_its_tenth_minute(anon: httpx.Client, clock: Clock) -> None:
    code = code_for(anon)
    clock.advance(599)
    assert exchange(anon, code).status_code == 200


def test_token_lifetime_counts_from_the_exchange(anon: httpx.Client, clock: Clock) -> None:
    code = code_for(anon)
    clock.advance(300)
    token = exchange(anon, code).json()["access_token"]
    clock.advance(3599)
    assert anon.get("/v1/whoami", headers=bearer(token)).status_code == 200
    clock.advance(1)
    assert anon.get("/v1/whoami", headers=bearer(token)).status_code == 401


def test_authorize_location_carries_code_and_state(anon: httpx.Client) -> None:
    response = anon.get(
        AUTHORIZE,
        params={"response_type": "code", "client_id": CLIENT_ID, "state": "a b&c=d"},
    )
    params = redirected(response)  # redirect_uri left out: the client's only one is used
    assert params["state"] == "a b&c=d"
    assert params["code"].startswith("oac_")
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-request-id"].startswith("req_")
    # and the exchange then needs no redirect_uri, or the same one
    assert exchange(anon, params["code"], redirect_uri=None).status_code == 200
