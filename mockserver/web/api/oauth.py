"""`/v1/oauth`: the authorization endpoint and the token endpoint.

Neither needs a bearer credential (they are how one gets one). Their errors (`as_oauth_error`),
reading the form included, keep the service's envelope, with the RFC 6749 error code in
`error.code` (any 4xx without one is `invalid_request`), and the `Cache-Control: no-store` of
RFC 6749 section 5.1; a failed client authentication also gets `WWW-Authenticate: Basic`
(section 5.2).
"""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.errors import ApiError
from mockserver.domain import oauth
from mockserver.domain.oauth_token import authenticate_client, exchange, token_response
from mockserver.engine.journal import RequestState
from mockserver.engine.sandbox import SandboxState
from mockserver.web.api.call import answer, form_of, query_of

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
CLIENT_CHALLENGE = 'Basic realm="mockserver", charset="UTF-8"'


def as_oauth_error(error: ApiError) -> ApiError:
    """Give an error raised by an OAuth endpoint its RFC 6749 code and headers."""
    error.headers.update(NO_STORE)
    if error.status == 401:
        error.headers["WWW-Authenticate"] = CLIENT_CHALLENGE
    if error.code is None and 400 <= error.status < 500:
        error.code = "invalid_request"
    return error


async def authorize(request: Request) -> Response:
    """`GET /v1/oauth/authorize`: approve at once: 302 to the redirect URI with `code` and
    `state`, or with `error`."""

    store = _sandbox(request).store
    _, pairs = query_of(request.scope["state"]["request"])
    try:
        redirect = oauth.authorize(store.oauth, store.accounts, pairs, store.now())
    except ApiError as error:
        raise as_oauth_error(error) from None
    return answer(b"", 302, media_type=None, headers={"Location": redirect.location, **NO_STORE})


async def token(request: Request) -> Response:
    """`POST /v1/oauth/token`: exchange an authorization code for an access token."""

    store = _sandbox(request).store
    state: RequestState = request.scope["state"]["request"]
    raw = state.authorization
    authorization = None if raw is None else raw.decode("latin-1")
    try:
        values, repeated = oauth.single_values(await form_of(state))
        if repeated:
            name = min(repeated)
            raise oauth.oauth_error("invalid_request", f"'{name}' was given more than once.", name)
        client = authenticate_client(store.oauth, authorization, values)
        issued = exchange(store.oauth, client, values, store.now())
    except ApiError as error:
        raise as_oauth_error(error) from None
    return answer(orjson.dumps(token_response(issued)), headers=dict(NO_STORE))


def _sandbox(request: Request) -> SandboxState:
    sandbox: SandboxState = request.scope["state"]["sandbox"]
    return sandbox
