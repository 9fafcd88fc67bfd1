"""`/v1/webhook_endpoints`: create (the secret, once), list and delete webhook endpoints."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.domain import views
from mockserver.web.api.call import JSON_BODY, answer, call_of
from mockserver.webhooks import endpoints


async def list_endpoints(request: Request) -> Response:
    """`GET /v1/webhook_endpoints`."""
    call = await call_of(request, "webhooks:read")
    book = call.sandbox.webhooks.book(call.world)
    items = [endpoints.endpoint_view(e) for e in endpoints.listing(book)]
    return answer(orjson.dumps(views.listing(items)))


async def create_endpoint(request: Request) -> Response:
    """`POST /v1/webhook_endpoints`."""
    call = await call_of(request, "webhooks:write", JSON_BODY)
    engine, world = call.sandbox.webhooks, call.world
    created = endpoints.create(
        world,
        engine.book(world),
        call.body,
        call.principal.actor,
        call.now(),
        strict=engine.strict_urls,
    )
    return answer(orjson.dumps(endpoints.endpoint_created(created)), 201)


async def delete_endpoint(request: Request) -> Response:
    """`DELETE /v1/webhook_endpoints/{endpoint_id}`."""
    call = await call_of(request, "webhooks:write")
    book = call.sandbox.webhooks.book(call.world)
    endpoint_id, actor = call.params["endpoint_id"], call.principal.actor
    deleted = endpoints.delete(call.world, book, endpoint_id, actor, call.now())
    return answer(orjson.dumps(views.deleted(deleted.id, "webhook_endpoint")))
