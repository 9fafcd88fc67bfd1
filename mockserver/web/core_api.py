"""Handlers of the core resources: whoami, vaults and documents."""

from __future__ import annotations

from starlette.responses import Response

from mockserver.domain import documents, vaults, views
from mockserver.web.body import read_json_object
from mockserver.web.context import Call, endpoint
from mockserver.web.render import JsonBytes, json_response


@endpoint(None)
async def whoami(call: Call) -> Response:
    p = call.principal
    return json_response(
        {
            "account_id": p.account_id,
            "region": call.world.account.default_region,
            "environment": p.environment,
            "scopes": sorted(p.scopes),
            "rate_limit": p.rate_limit,
        }
    )


@endpoint("vaults:read")
async def list_vaults(call: Call) -> Response:
    items = vaults.listing(call.world, call.region)
    return json_response(views.listing([views.vault_summary(v) for v in items]))


@endpoint("vaults:write")
async def create_vault(call: Call) -> Response:
    body = await read_json_object(call.request)
    vault = vaults.create(
        call.world, call.region, body, call.store.limits, call.principal.actor, call.now()
    )
    return json_response(views.vault_created(vault), 201)


@endpoint("vaults:read")
async def get_vault(call: Call) -> Response:
    vault = vaults.get(call.world, call.region, call.request.path_params["vault_id"])
    return json_response(views.vault_detail(vault, vaults.document_count(call.world, vault)))


@endpoint("documents:read")
async def list_documents(call: Call) -> Response:
    return JsonBytes(
        documents.page_json(call.world, call.region, call.request.query_params, call.store.cursors),
        kept=True,
    )


@endpoint("documents:write")
async def create_document(call: Call) -> Response:
    body = await read_json_object(call.request)
    doc = documents.create(
        call.world, call.region, body, call.store.limits, call.principal.actor, call.now()
    )
    return json_response(views.document_created(doc), 201)


@endpoint("documents:read")
async def get_document(call: Call) -> Response:
    doc = documents.get(call.world, call.region, call.request.path_params["doc_id"])
    return JsonBytes(views.document_detail_json(doc), kept=True)


@endpoint("documents:write")
async def delete_document(call: Call) -> Response:
    doc = documents.delete(
        call.world,
        call.region,
        call.request.path_params["doc_id"],
        call.principal.actor,
        call.now(),
    )
    return json_response(views.deleted(doc.id, "document"))
