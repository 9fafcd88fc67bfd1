"""Operations of workflows, the audit log and audit exports."""

from __future__ import annotations

import orjson

from mockserver.audit import chain as audit
from mockserver.core.errors import NotFound
from mockserver.domain import audit_exports as exports
from mockserver.domain import validation as v
from mockserver.domain import views, workflows
from mockserver.engine.calls import Answer, Call

CSV = "text/csv; charset=utf-8"


def create_workflow(call: Call) -> Answer:
    principal, world = call.caller()
    workflow = workflows.create(
        world, call.region, call.body, call.store.limits, principal.actor, call.now()
    )
    return Answer(orjson.dumps(views.workflow_created(workflow)), 201)


def advance_workflow(call: Call) -> Answer:
    principal, world = call.caller()
    workflow = workflows.advance(
        world, call.region, call.params["workflow_id"], call.body, principal.actor, call.now()
    )
    return Answer(orjson.dumps(views.workflow_advanced(workflow)))


def get_workflow(call: Call) -> Answer:
    _, world = call.caller()
    workflow = workflows.get(world, call.region, call.params["workflow_id"])
    return Answer(orjson.dumps(views.workflow_detail(workflow)))


def list_audit_logs(call: Call) -> Answer:
    _, world = call.caller()
    limit = v.limit(call.query.get("limit"))
    chain = world.regions[call.region].audit
    page, has_more, cursor = audit.listing(chain, call.query, call.store.cursors, limit)
    return Answer(audit.page_bytes(page, has_more, cursor))


def create_export(call: Call) -> Answer:
    principal, world = call.caller()
    job = exports.create(
        world, call.region, call.body, principal.actor, call.now(), call.store.secret
    )
    call.store.export_worlds[job.id] = world
    return Answer(orjson.dumps(views.export_job(job)), 202)


def get_export(call: Call) -> Answer:
    _, world = call.caller()
    job = exports.get(world, call.params["export_id"])
    url = None
    if job.status == "completed":
        query = exports.download_query(job)
        url = f"{call.base_url()}/v1/audit_logs/export/{job.id}/download?{query}"
    return Answer(orjson.dumps(views.export_job(job, url)))


def download_export(call: Call) -> Answer:
    """The pre-signed CSV download: no credential, the URL's signature is the authority."""
    store = call.store
    job_id = call.params["export_id"]
    world = store.export_worlds.get(job_id)
    if world is None:
        raise NotFound.resource("audit export", job_id)
    job = exports.get(world, job_id)
    exports.check_download(job, call.query, store.secret, store.now())
    return Answer(
        exports.csv_bytes(world, job),
        media_type=CSV,
        headers={"Content-Disposition": f'attachment; filename="{job.id}.csv"'},
    )
