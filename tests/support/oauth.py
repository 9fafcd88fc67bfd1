"""Shared pieces of the OAuth tests: the default seed's client and small request helpers."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx

CLIENT_ID = "mock_client"
SECRET = "mock_secret"
REDIRECT = "http://127.0.0.1:8765/callback"
AUTHORIZE = "/v1/oauth/authorize"
TOKEN = "/v1/oauth/token"
ALL_USER = "brooke.kelly@mock-us.example"  # permissions: all (the account's first user)
READ_USER = "john.delacruz@mock-us.example"  # permissions: read
PARTIAL_USER = "raymond.caldwell@mock-us.example"  # documents, vaults:read, workflows
# RFC 7636 appendix B
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def authorize(client: httpx.Client, **params: str | None) -> httpx.Response:
    """GET the authorize endpoint with the default client's parameters, overridden by
    `params` (None drops one)."""
    query = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": REDIRECT,
        "state": "xyz",
        **params,
    }
    return client.get(AUTHORIZE, params={k: v for k, v in query.items() if v is not None})


def redirected(response: httpx.Response, to: str = REDIRECT) -> dict[str, str]:
    """The query parameters of a 302 to `to`, each given once."""
    assert response.status_code == 302, response.text
    location = urlsplit(response.headers["location"])
    assert location._replace(query="").geturl() == to
    params = parse_qs(location.query, keep_blank_values=True)
    assert all(len(v) == 1 for v in params.values())
    return {k: v[0] for k, v in params.items()}


def code_for(client: httpx.Client, **params: str | None) -> str:
    return redirected(authorize(client, **params))["code"]


def exchange(
    client: httpx.Client,
    code: str | None,
    *,
    auth: tuple[str, str] | None = (CLIENT_ID, SECRET),
    **fields: str | None,
) -> httpx.Response:
    """POST the token endpoint: client credentials as HTTP Basic unless `auth` is None."""
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **fields}
    data = {k: v for k, v in form.items() if v is not None}
    return client.post(TOKEN, data=data, auth=auth) if auth else client.post(TOKEN, data=data)


def token_for(client: httpx.Client, **params: str | None) -> str:
    response = exchange(client, code_for(client, **params))
    assert response.status_code == 200, response.text
    token: str = response.json()["access_token"]
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def oauth_error(
    response: httpx.Response, status: int, code: str, param: str | None = None
) -> dict[str, str]:
    """Check an OAuth error in the service's envelope and return its `error` object."""
    assert response.status_code == status, response.text
    assert response.headers["cache-control"] == "no-store"
    assert "location" not in response.headers
    error: dict[str, str] = response.json()["error"]
    assert error["type"] == ("authentication_error" if status == 401 else "bad_request")
    assert error["code"] == code
    assert error["message"]
    assert error["request_id"] == response.headers["x-request-id"]
    if param is not None:
        assert error["param"] == param
    return error
