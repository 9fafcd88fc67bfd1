"""`/v1/documents`: list, create, get and delete documents."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.domain import documents, views
from mockserver.web.api.call import JSON_BODY, answer, call_of


async def list_documents(request: Request) -> Response:
    """`GET /v1/documents`."""
    call = await call_of(request, "documents:read")
    return answer(documents.page_json(call.world, call.region, call.query, call.store.cursors))


async def create_document(request: Request) -> Response:
    """`POST /v1/documents`."""
    call = await call_of(request, "documents:write", JSON_BODY)
    limits, actor = call.store.limits, call.principal.actor
    doc = documents.create(call.world, call.region, call.body, limits, actor, call.now())
    return answer(orjson.dumps(views.document_created(doc)), 201)


async def get_document(request: Request) -> Response:
    """`GET /v1/documents/{doc_id}`."""
    call = await call_of(request, "documents:read")
    doc = documents.get(call.world, call.region, call.params["doc_id"])
    return answer(views.document_detail_json(doc))


async def delete_document(request: Request) -> Response:
    """`DELETE /v1/documents/{doc_id}`."""
    call = await call_of(request, "documents:write")
    actor = call.principal.actor
    doc = documents.delete(call.world, call.region, call.params["doc_id"], actor, call.now())
    return answer(orjson.dumps(views.deleted(doc.id, "document")))
