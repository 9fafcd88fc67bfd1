"""Handlers of workflows, the audit log and audit exports."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.audit import chain as audit
from mockserver.audit import exports
from mockserver.core.errors import NotFound
from mockserver.domain import validation as v
from mockserver.domain import views, workflows
from mockserver.web.body import read_json_object
from mockserver.web.context import Call, endpoint, store_of
from mockserver.web.render import JSON, json_response


@endpoint("workflows:write")
async def create_workflow(call: Call) -> Response:
    body = await read_json_object(call.request)
    workflow = workflows.create(
        call.world, call.region, body, call.store.limits, call.principal.actor, call.now()
    )
    return json_response(views.workflow_created(workflow), 201)


@endpoint("workflows:write")
async def advance_workflow(call: Call) -> Response:
    body = await read_json_object(call.request)
    workflow = workflows.advance(
        call.world,
        call.region,
        call.request.path_params["workflow_id"],
        body,
        call.principal.actor,
        call.now(),
    )
    return json_response(views.workflow_advanced(workflow))


@endpoint("workflows:read")
async def get_workflow(call: Call) -> Response:
    workflow = workflows.get(call.world, call.region, call.request.path_params["workflow_id"])
    return json_response(views.workflow_detail(workflow))


@endpoint("audit:read")
async def list_audit_logs(call: Call) -> Response:
    query = call.request.query_params
    limit = v.limit(query.get("limit"))
    chain = call.world.regions[call.region].audit
    page, has_more, cursor = audit.listing(chain, query, call.store.cursors, limit)
    return Response(audit.page_bytes(page, has_more, cursor), media_type=JSON)


def _download_url(request: Request, job_id: str, query: str) -> str:
    base = str(request.base_url).rstrip("/")
    return f"{base}/v1/audit_logs/export/{job_id}/download?{query}"


@endpoint("audit:read")
async def create_export(call: Call) -> Response:
    body = await read_json_object(call.request)
    job = exports.create(
        call.world, call.region, body, call.principal.actor, call.now(), call.store.secret
    )
    call.store.export_worlds[job.id] = call.world
    return json_response(views.export_job(job), 202)


@endpoint("audit:read")
async def get_export(call: Call) -> Response:
    job = exports.get(call.world, call.request.path_params["export_id"])
    url = None
    if job.status == "completed":
        url = _download_url(call.request, job.id, exports.download_query(job))
    return json_response(views.export_job(job, url))


async def download_export(request: Request) -> Response:
    """The pre-signed CSV download: no credential, the URL's signature is the authority."""
    store = store_of(request)
    job_id = request.path_params["export_id"]
    world = store.export_worlds.get(job_id)
    if world is None:
        raise NotFound.resource("audit export", job_id)
    job = exports.get(world, job_id)
    exports.check_download(job, request.query_params, store.secret, store.now())
    return Response(
        exports.csv_bytes(world, job),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{job.id}.csv"'},
    )
