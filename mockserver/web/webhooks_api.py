"""Handlers of `/v1/webhook_endpoints`: create (the secret, once), list, delete."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.domain import views
from mockserver.web.body import read_json_object
from mockserver.web.context import Call, endpoint
from mockserver.web.render import json_response
from mockserver.webhooks import endpoints as webhooks
from mockserver.webhooks.delivery import DeliveryEngine


def engine_of(request: Request) -> DeliveryEngine:
    engine: DeliveryEngine = request.app.state.webhooks
    return engine


@endpoint("webhooks:write")
async def create_endpoint(call: Call) -> Response:
    body = await read_json_object(call.request)
    engine = engine_of(call.request)
    created = webhooks.create(
        call.world,
        engine.book(call.world),
        body,
        call.principal.actor,
        call.now(),
        strict=engine.strict_urls,
    )
    return json_response(webhooks.endpoint_created(created), 201)


@endpoint("webhooks:read")
async def list_endpoints(call: Call) -> Response:
    book = engine_of(call.request).book(call.world)
    return json_response(views.listing([webhooks.endpoint_view(e) for e in webhooks.listing(book)]))


@endpoint("webhooks:write")
async def delete_endpoint(call: Call) -> Response:
    book = engine_of(call.request).book(call.world)
    endpoint_id = call.request.path_params["endpoint_id"]
    deleted = webhooks.delete(call.world, book, endpoint_id, call.principal.actor, call.now())
    return json_response(views.deleted(deleted.id, "webhook_endpoint"))
