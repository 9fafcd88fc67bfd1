"""`/v1/workflows`: create, get and advance signing workflows."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.operations import lifecycle
from mockserver.web.api.operate import Endpoint, Run, operate


async def create_workflow(request: Request) -> Response:
    """`POST /v1/workflows`."""
    return await operate(request, lifecycle.create_workflow)


async def get_workflow(request: Request) -> Response:
    """`GET /v1/workflows/{workflow_id}`."""
    return await operate(request, lifecycle.get_workflow)


async def advance_workflow(request: Request) -> Response:
    """`POST /v1/workflows/{workflow_id}/advance`."""
    return await operate(request, lifecycle.advance_workflow)


def endpoints() -> dict[Run, Endpoint]:
    """Each operation's function (as the module has it now) and its endpoint."""
    return {
        lifecycle.create_workflow: create_workflow,
        lifecycle.get_workflow: get_workflow,
        lifecycle.advance_workflow: advance_workflow,
    }
