"""OAuth clients as seeds register them: several redirect URIs, a redirect URI with a query,
a custom token lifetime, a secret that needs form encoding, an account without users."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.core.errors import SeedError
from mockserver.seeds.loader import load_seed_text
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.oauth import AUTHORIZE, TOKEN, bearer, oauth_error, redirected

SECRET = "p%ss+w:rd"  # reads differently once form-decoded
CB = "http://localhost:9000/cb?tenant=alpha"
OTHER_CB = "http://localhost:9000/other"
SEED = f"""\
version: 1
accounts:
  - id: acct_alpha
    name: Alpha
    default_region: eu
    users:
      - {{email: ada@alpha.example, name: Ada, permissions: all}}
    keys:
      - {{key: sk_test_alpha, owner: ops@alpha.example, scopes: all}}
    oauth_clients:
      - client_id: multi
        client_secret: "{SECRET}"
        redirect_uris: ["{CB}", "{OTHER_CB}"]
        token_lifetime: 60
      - {{client_id: other, client_secret: other_secret, redirect_uris: ["{CB}"]}}
  - id: acct_nobody
    name: Nobody
    default_region: us
    oauth_clients:
      - {{client_id: lonely, client_secret: s, redirect_uris: ["http://localhost:9000/cb"]}}
"""


@pytest.fixture(scope="module")
def seeded_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen"), seed=load_seed_text(SEED, "oauth.yaml"))


@pytest.fixture
def client(seeded_app: Starlette) -> Iterator[httpx.Client]:
    seeded_app.state.store.reset()
    with inprocess_client(seeded_app) as http:
        yield http


def code_of(client: httpx.Client, client_id: str = "multi", redirect_uri: str = CB) -> str:
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri}
    return redirected(client.get(AUTHORIZE, params=params), redirect_uri.split("?")[0])["code"]


def token(
    client: httpx.Client, code: str, auth: tuple[str, str] = ("multi", SECRET), **headers: str
) -> httpx.Response:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": CB}
    if headers:
        return client.post(TOKEN, data=form, headers=headers)
    return client.post(TOKEN, data=form, auth=auth)


def test_redirect_uri_query_is_kept(client: httpx.Client) -> None:
    response = client.get(
        AUTHORIZE,
        params={"response_type": "code", "client_id": "multi", "redirect_uri": CB, "state": "s"},
    )
    location = response.headers["location"]
    assert location.startswith(CB + "&code=oac_")
    assert location.endswith("&state=s")


def test_redirect_uri_is_required_when_several_are_registered(client: httpx.Client) -> None:
    response = client.get(AUTHORIZE, params={"response_type": "code", "client_id": "multi"})
    oauth_error(response, 400, "invalid_request", "redirect_uri")


def test_any_registered_redirect_uri_works(client: httpx.Client) -> None:
    code = code_of(client, redirect_uri=OTHER_CB)
    response = client.post(
        TOKEN,
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": OTHER_CB},
        auth=("multi", SECRET),
    )
    assert response.status_code == 200


def test_token_lifetime_comes_from_the_seed(client: httpx.Client, seeded_app: Starlette) -> None:
    issued = token(client, code_of(client)).json()
    assert issued["expires_in"] == 60
    seeded_app.state.store.clock.advance(60)
    response = client.get("/v1/whoami", headers=bearer(issued["access_token"]))
    assert response.status_code == 401


def test_secret_sent_raw_or_form_encoded_in_basic(client: httpx.Client) -> None:
    assert token(client, code_of(client)).status_code == 200  # raw, as authlib sends it
    encoded = base64.b64encode(f"multi:{quote(SECRET, safe='')}".encode()).decode()
    response = token(client, code_of(client), authorization=f"Basic {encoded}")  # RFC 6749
    assert response.status_code == 200


def test_code_of_another_client_is_invalid_grant(client: httpx.Client) -> None:
    code = code_of(client, client_id="other")
    oauth_error(token(client, code), 400, "invalid_grant", "code")


def test_account_without_users_is_access_denied(client: httpx.Client) -> None:
    response = client.get(AUTHORIZE, params={"response_type": "code", "client_id": "lonely"})
    assert redirected(response, "http://localhost:9000/cb")["error"] == "access_denied"


def test_token_acts_as_the_user_in_the_accounts_sandbox(client: httpx.Client) -> None:
    access = token(client, code_of(client)).json()["access_token"]
    whoami = client.get("/v1/whoami", headers=bearer(access)).json()
    assert (whoami["account_id"], whoami["region"], whoami["environment"]) == (
        "acct_alpha",
        "eu",
        "sandbox",
    )
    created = client.post(
        "/v1/vaults", json={"name": "By Ada", "region": "eu"}, headers=bearer(access)
    )
    assert created.status_code == 201
    vault = client.get(f"/v1/vaults/{created.json()['id']}", headers=bearer("sk_test_alpha"))
    assert vault.json()["members"] == [{"email": "ada@alpha.example", "role": "owner"}]


@pytest.mark.parametrize("value", ["0", "-5", "soon", "1.5", "true"])
def test_seed_token_lifetime_must_be_a_positive_integer(value: str) -> None:
    text = SEED.replace("token_lifetime: 60", f"token_lifetime: {value}")
    with pytest.raises(SeedError) as info:
        load_seed_text(text, "oauth.yaml")
    assert info.value.line == SEED.splitlines().index("        token_lifetime: 60") + 1
    assert "token_lifetime" in info.value.message
