"""`/v1/whoami` (the caller) and `/v1/openapi.json` (the API's OpenAPI document)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.api import Api
from mockserver.engine.operations import resources
from mockserver.web.api.operate import Endpoint, Run, operate


async def whoami(request: Request) -> Response:
    """`GET /v1/whoami`."""
    return await operate(request, resources.whoami)


async def openapi(request: Request) -> Response:
    """`GET /v1/openapi.json`."""
    return await operate(request, Api.openapi_document)


def endpoints() -> dict[Run, Endpoint]:
    """Each operation's function (as the module has it now) and its endpoint."""
    return {resources.whoami: whoami, Api.openapi_document: openapi}
