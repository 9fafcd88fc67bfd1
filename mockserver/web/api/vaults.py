"""`/v1/vaults`: list, create and get vaults."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.operations import resources
from mockserver.web.api.operate import Endpoint, Run, operate


async def list_vaults(request: Request) -> Response:
    """`GET /v1/vaults`."""
    return await operate(request, resources.list_vaults)


async def create_vault(request: Request) -> Response:
    """`POST /v1/vaults`."""
    return await operate(request, resources.create_vault)


async def get_vault(request: Request) -> Response:
    """`GET /v1/vaults/{vault_id}`."""
    return await operate(request, resources.get_vault)


def endpoints() -> dict[Run, Endpoint]:
    """Each operation's function (as the module has it now) and its endpoint."""
    return {
        resources.list_vaults: list_vaults,
        resources.create_vault: create_vault,
        resources.get_vault: get_vault,
    }
