"""Operations of OAuth 2.0: `GET /v1/oauth/authorize` and `POST /v1/oauth/token`.

Neither needs a bearer credential (they are how one gets one). Their errors (`as_oauth_error`)
keep the service's envelope, with the RFC 6749 error code in `error.code` (any 4xx without one is
`invalid_request`), and the `Cache-Control: no-store` of RFC 6749 section 5.1; a failed client
authentication also gets `WWW-Authenticate: Basic` (section 5.2).
"""

from __future__ import annotations

import orjson

from mockserver.core.errors import ApiError
from mockserver.domain import oauth
from mockserver.domain.oauth_token import authenticate_client, exchange, token_response
from mockserver.engine.calls import Answer, Call

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
CLIENT_CHALLENGE = 'Basic realm="mockserver", charset="UTF-8"'


def as_oauth_error(error: ApiError) -> ApiError:
    """Give an error raised by an OAuth endpoint (reading its form included) its RFC 6749 code
    and headers: the operations' `refusal`."""
    error.headers.update(NO_STORE)
    if error.status == 401:
        error.headers["WWW-Authenticate"] = CLIENT_CHALLENGE
    if error.code is None and 400 <= error.status < 500:
        error.code = "invalid_request"
    return error


def authorize(call: Call) -> Answer:
    """Approve at once: 302 to the redirect URI with `code` and `state`, or with `error`."""
    store = call.store
    redirect = oauth.authorize(store.oauth, store.accounts, call.query_pairs, store.now())
    return Answer(b"", 302, media_type=None, headers={"Location": redirect.location, **NO_STORE})


def token(call: Call) -> Answer:
    """Exchange an authorization code for an access token (the body: the form's pairs)."""
    store = call.store
    values, repeated = oauth.single_values(call.body)
    if repeated:
        name = min(repeated)
        raise oauth.oauth_error("invalid_request", f"'{name}' was given more than once.", name)
    client = authenticate_client(store.oauth, call.authorization, values)
    issued = exchange(store.oauth, client, values, store.now())
    return Answer(orjson.dumps(token_response(issued)), headers=dict(NO_STORE))
