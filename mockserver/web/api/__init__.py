"""The `/v1` operations as Starlette routes: one module of endpoints per resource, each a plain
async function that runs its operation (`operate.py`)."""

from __future__ import annotations

from starlette.routing import Route

from mockserver.engine.api import Api
from mockserver.web.api import (
    audit_logs,
    documents,
    meta,
    oauth,
    vaults,
    webhook_endpoints,
    workflows,
)
from mockserver.web.api.operate import Endpoint, Run, api_routes


def routes(api: Api) -> list[Route]:
    """The routes of every operation of `api`'s table. The endpoints are looked up by the
    operation functions the modules hold when the app is built, as the table is."""
    endpoints: dict[Run, Endpoint] = {}
    for module in (meta, oauth, vaults, documents, workflows, audit_logs, webhook_endpoints):
        endpoints.update(module.endpoints())
    return api_routes(api, endpoints)
