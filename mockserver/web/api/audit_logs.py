"""`/v1/audit_logs`: the audit log, its exports and their pre-signed downloads."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.audit import chain as audit
from mockserver.core.errors import NotFound
from mockserver.domain import validation as v
from mockserver.domain import views
from mockserver.engine.journal import RequestState
from mockserver.engine.sandbox import SandboxState
from mockserver.web.api.call import JSON_BODY, answer, call_of, query_of

CSV = "text/csv; charset=utf-8"

# The export jobs (domain/audit_exports.py) are imported by the first export request: every
# sandbox built, each pytest session's, would pay for them, and few tests export.


async def list_audit_logs(request: Request) -> Response:
    """`GET /v1/audit_logs`."""
    call = await call_of(request, "audit:read")
    limit = v.limit(call.query.get("limit"))
    chain = call.world.regions[call.region].audit
    page, has_more, cursor = audit.listing(chain, call.query, call.store.cursors, limit)
    return answer(audit.page_bytes(page, has_more, cursor))


async def create_export(request: Request) -> Response:
    """`POST /v1/audit_logs/export`."""
    from mockserver.domain import audit_exports as exports

    call = await call_of(request, "audit:read", JSON_BODY)
    store, world = call.store, call.world
    job = exports.create(
        world, call.region, call.body, call.principal.actor, call.now(), store.secret
    )
    store.export_worlds[job.id] = world
    return answer(orjson.dumps(views.export_job(job)), 202)


async def get_export(request: Request) -> Response:
    """`GET /v1/audit_logs/export/{export_id}`."""
    from mockserver.domain import audit_exports as exports

    call = await call_of(request, "audit:read")
    job = exports.get(call.world, call.params["export_id"])
    url = None
    if job.status == "completed":
        query = exports.download_query(job)
        url = f"{call.base_url()}/v1/audit_logs/export/{job.id}/download?{query}"
    return answer(orjson.dumps(views.export_job(job, url)))


async def download_export(request: Request) -> Response:
    """`GET /v1/audit_logs/export/{export_id}/download`: the pre-signed CSV download; no
    credential, the URL's signature is the authority."""
    from mockserver.domain import audit_exports as exports

    sandbox: SandboxState = request.scope["state"]["sandbox"]
    state: RequestState = request.scope["state"]["request"]
    store = sandbox.store
    query, _ = query_of(state)
    job_id = request.path_params["export_id"]
    world = store.export_worlds.get(job_id)
    if world is None:
        raise NotFound.resource("audit export", job_id)
    job = exports.get(world, job_id)
    exports.check_download(job, query, store.secret, store.now())
    return answer(
        exports.csv_bytes(world, job),
        media_type=CSV,
        headers={"Content-Disposition": f'attachment; filename="{job.id}.csv"'},
    )
