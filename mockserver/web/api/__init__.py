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

ENDPOINTS: dict[Run, Endpoint] = {
    **meta.ENDPOINTS,
    **oauth.ENDPOINTS,
    **vaults.ENDPOINTS,
    **documents.ENDPOINTS,
    **workflows.ENDPOINTS,
    **audit_logs.ENDPOINTS,
    **webhook_endpoints.ENDPOINTS,
}


def routes(api: Api) -> list[Route]:
    """The routes of every operation of `api`'s table."""
    return api_routes(api, ENDPOINTS)
