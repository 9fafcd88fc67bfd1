"""Operations of `/v1/webhook_endpoints`: create (the secret, once), list, delete."""

from __future__ import annotations

import orjson

from mockserver.domain import views
from mockserver.engine.calls import Answer, Call
from mockserver.webhooks import endpoints


def create_endpoint(call: Call) -> Answer:
    principal, world = call.caller()
    engine = call.webhooks
    created = endpoints.create(
        world, engine.book(world), call.body, principal.actor, call.now(), strict=engine.strict_urls
    )
    return Answer(orjson.dumps(endpoints.endpoint_created(created)), 201)


def list_endpoints(call: Call) -> Answer:
    _, world = call.caller()
    book = call.webhooks.book(world)
    items = [endpoints.endpoint_view(e) for e in endpoints.listing(book)]
    return Answer(orjson.dumps(views.listing(items)))


def delete_endpoint(call: Call) -> Answer:
    principal, world = call.caller()
    book = call.webhooks.book(world)
    deleted = endpoints.delete(world, book, call.params["endpoint_id"], principal.actor, call.now())
    return Answer(orjson.dumps(views.deleted(deleted.id, "webhook_endpoint")))
