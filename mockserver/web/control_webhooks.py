"""The `/_mock/webhooks` control plane: the deliveries journal, redelivery, waiting for quiet.

GET  /_mock/webhooks/deliveries?endpoint_id=&event_id=&event_type=&status=&after=
                                                                 every delivery, oldest first
POST /_mock/webhooks/deliveries/{id}/redeliver                   queue the event again
POST /_mock/webhooks/wait {"timeout"?: s}                        until no attempt is in flight
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.core.errors import NotFound, ValidationError
from mockserver.domain import validation as v
from mockserver.domain import views
from mockserver.engine.control import Control
from mockserver.web.body import read_control_json
from mockserver.web.context import webhooks_of
from mockserver.web.control_api import admin
from mockserver.web.render import json_response
from mockserver.webhooks.deliveries import DELIVERY_STATUSES, delivery_view

WAIT_MAX = 600.0  # seconds


@admin
async def list_deliveries(request: Request, control: Control) -> Response:
    query = request.query_params
    status = query.get("status")
    if status is not None:
        v.choice(status, "status", DELIVERY_STATUSES)
    selected = webhooks_of(request).journal.select(
        endpoint_id=query.get("endpoint_id"),
        event_id=query.get("event_id"),
        event_type=query.get("event_type"),
        status=status,
    )
    after = query.get("after")
    if after is not None:  # only those listed after this one (`mockserver listen` reads on)
        listed = list(selected)
        ids = [d.id for d in listed]
        if after not in ids:
            raise NotFound(
                f"No delivery '{after[:64]}' in this listing (the journal keeps the latest ones).",
                param="after",
            )
        selected = listed[ids.index(after) + 1 :]
    return json_response(views.listing([delivery_view(d) for d in selected]))


@admin
async def redeliver(request: Request, control: Control) -> Response:
    copy = control.redeliver(request.path_params["delivery_id"])
    return json_response(delivery_view(copy), 202)


@admin
async def wait(request: Request, control: Control) -> Response:
    """Wait until every attempt under way has finished (each ends within the delivery timeout);
    `idle` is false if some were still running after `timeout` seconds."""
    engine = webhooks_of(request)
    timeout = engine.timeout + 5.0
    if await request.body():
        raw = (await read_control_json(request)).get("timeout")
        if raw is not None:
            if isinstance(raw, bool) or not isinstance(raw, int | float):
                raise ValidationError("'timeout' must be a number of seconds.", param="timeout")
            if not 0 <= raw <= WAIT_MAX:
                raise ValidationError(
                    f"'timeout' must be from 0 to {WAIT_MAX:g} seconds.", param="timeout"
                )
            timeout = float(raw)
    idle, in_flight = await control.settle(timeout)
    return json_response({"idle": idle, "in_flight": in_flight})


def admin_webhook_routes() -> list[BaseRoute]:
    return [
        Route("/_mock/webhooks/deliveries", list_deliveries, methods=["GET"]),
        Route("/_mock/webhooks/deliveries/{delivery_id}/redeliver", redeliver, methods=["POST"]),
        Route("/_mock/webhooks/wait", wait, methods=["POST"]),
    ]
