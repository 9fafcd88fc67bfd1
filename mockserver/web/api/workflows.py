"""`/v1/workflows`: create, get and advance signing workflows."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.domain import views, workflows
from mockserver.web.api.call import JSON_BODY, answer, call_of


async def create_workflow(request: Request) -> Response:
    """`POST /v1/workflows`."""
    call = await call_of(request, "workflows:write", JSON_BODY)
    limits, actor = call.store.limits, call.principal.actor
    workflow = workflows.create(call.world, call.region, call.body, limits, actor, call.now())
    return answer(orjson.dumps(views.workflow_created(workflow)), 201)


async def get_workflow(request: Request) -> Response:
    """`GET /v1/workflows/{workflow_id}`."""
    call = await call_of(request, "workflows:read")
    workflow = workflows.get(call.world, call.region, call.params["workflow_id"])
    return answer(orjson.dumps(views.workflow_detail(workflow)))


async def advance_workflow(request: Request) -> Response:
    """`POST /v1/workflows/{workflow_id}/advance`."""
    call = await call_of(request, "workflows:write", JSON_BODY)
    workflow = workflows.advance(
        call.world,
        call.region,
        call.params["workflow_id"],
        call.body,
        call.principal.actor,
        call.now(),
    )
    return answer(orjson.dumps(views.workflow_advanced(workflow)))
