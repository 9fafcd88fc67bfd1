"""`/v1/webhook_endpoints`: list, create and delete webhook endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.operations import webhook_endpoints
from mockserver.web.api.operate import Endpoint, Run, operate


async def list_endpoints(request: Request) -> Response:
    """`GET /v1/webhook_endpoints`."""
    return await operate(request, webhook_endpoints.list_endpoints)


async def create_endpoint(request: Request) -> Response:
    """`POST /v1/webhook_endpoints`."""
    return await operate(request, webhook_endpoints.create_endpoint)


async def delete_endpoint(request: Request) -> Response:
    """`DELETE /v1/webhook_endpoints/{endpoint_id}`."""
    return await operate(request, webhook_endpoints.delete_endpoint)


def endpoints() -> dict[Run, Endpoint]:
    """Each operation's function (as the module has it now) and its endpoint."""
    return {
        webhook_endpoints.list_endpoints: list_endpoints,
        webhook_endpoints.create_endpoint: create_endpoint,
        webhook_endpoints.delete_endpoint: delete_endpoint,
    }
