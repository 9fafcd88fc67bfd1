"""`/v1/oauth`: the authorization endpoint and the token endpoint."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.operations import oauth
from mockserver.web.api.operate import Endpoint, Run, operate


async def authorize(request: Request) -> Response:
    """`GET /v1/oauth/authorize`."""
    return await operate(request, oauth.authorize)


async def token(request: Request) -> Response:
    """`POST /v1/oauth/token`."""
    return await operate(request, oauth.token)


def endpoints() -> dict[Run, Endpoint]:
    """Each operation's function (as the module has it now) and its endpoint."""
    return {oauth.authorize: authorize, oauth.token: token}
