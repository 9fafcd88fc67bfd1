"""Handlers of the OAuth 2.0 endpoints: `GET /v1/oauth/authorize` and `POST /v1/oauth/token`.

Neither needs a bearer credential (they are how one gets one). Their errors keep the service's
envelope, with the RFC 6749 error code in `error.code` (any 4xx without one is
`invalid_request`), and the `Cache-Control: no-store` of RFC 6749 section 5.1; a failed client
authentication also gets `WWW-Authenticate: Basic` (section 5.2).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.errors import ApiError
from mockserver.domain import oauth
from mockserver.domain.oauth_token import authenticate_client, exchange, token_response
from mockserver.web.context import store_of
from mockserver.web.form import read_form
from mockserver.web.render import json_response

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
CLIENT_CHALLENGE = 'Basic realm="mockserver", charset="UTF-8"'


def _as_oauth_error(error: ApiError) -> ApiError:
    """Give an error raised by an OAuth endpoint its RFC 6749 code and headers."""
    error.headers.update(NO_STORE)
    if error.status == 401:
        error.headers["WWW-Authenticate"] = CLIENT_CHALLENGE
    if error.code is None and 400 <= error.status < 500:
        error.code = "invalid_request"
    return error


async def authorize(request: Request) -> Response:
    """Approve at once: 302 to the redirect URI with `code` and `state`, or with `error`."""
    store = store_of(request)
    try:
        redirect = oauth.authorize(
            store.oauth, store.accounts, request.query_params.multi_items(), store.now()
        )
    except ApiError as error:
        raise _as_oauth_error(error) from None
    return Response(status_code=302, headers={"Location": redirect.location, **NO_STORE})


async def token(request: Request) -> Response:
    """Exchange an authorization code for an access token."""
    store = store_of(request)
    try:
        values, repeated = oauth.single_values(await read_form(request))
        if repeated:
            name = min(repeated)
            raise oauth.oauth_error("invalid_request", f"'{name}' was given more than once.", name)
        client = authenticate_client(store.oauth, request.headers.get("authorization"), values)
        issued = exchange(store.oauth, client, values, store.now())
    except ApiError as error:
        raise _as_oauth_error(error) from None
    return json_response(token_response(issued), headers=NO_STORE)
