"""`/v1/vaults`: list, create and get vaults."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.domain import vaults, views
from mockserver.web.api.call import JSON_BODY, answer, call_of


async def list_vaults(request: Request) -> Response:
    """`GET /v1/vaults`."""
    call = await call_of(request, "vaults:read")
    items = vaults.listing(call.world, call.region)
    return answer(orjson.dumps(views.listing([views.vault_summary(v) for v in items])))


async def create_vault(request: Request) -> Response:
    """`POST /v1/vaults`."""
    call = await call_of(request, "vaults:write", JSON_BODY)
    limits, actor = call.store.limits, call.principal.actor
    vault = vaults.create(call.world, call.region, call.body, limits, actor, call.now())
    return answer(orjson.dumps(views.vault_created(vault)), 201)


async def get_vault(request: Request) -> Response:
    """`GET /v1/vaults/{vault_id}`."""
    call = await call_of(request, "vaults:read")
    world = call.world
    vault = vaults.get(world, call.region, call.params["vault_id"])
    return answer(orjson.dumps(views.vault_detail(vault, vaults.document_count(world, vault))))
