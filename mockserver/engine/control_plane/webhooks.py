"""`/_mock/webhooks` and `/_mock/events`: the deliveries journal, redelivery, waiting for
quiet, making an event happen and sending one again.

    GET  /_mock/webhooks/deliveries?endpoint_id=&event_id=&event_type=&status=&after=&account=
    POST /_mock/webhooks/deliveries/{id}/redeliver     queue the event again
    POST /_mock/webhooks/wait {"timeout"?: s}          until no attempt is in flight
    POST /_mock/events/trigger {"type", "overrides"?: {FIELD: VALUE}, "key"?}
    POST /_mock/events/{evt_id}/resend {"endpoint_id"?}
"""

from __future__ import annotations

from mockserver.core.errors import NotFound, ValidationError
from mockserver.domain import validation as v
from mockserver.domain import views
from mockserver.engine.answers import json_response
from mockserver.engine.control_plane.call import ControlCall
from mockserver.engine.request import Response
from mockserver.webhooks.deliveries import DELIVERY_STATUSES, delivery_view

WAIT_MAX = 600.0  # seconds
DEFAULT_KEY = "sk_test_mock_full"


async def list_deliveries(call: ControlCall) -> Response:
    query = call.query
    status = query.get("status")
    if status is not None:
        v.choice(status, "status", DELIVERY_STATUSES)
    sandboxes = [call.sandbox]
    account = query.get("account")
    if account is not None:  # one account's deliveries
        sandboxes = [call.tenants.get(account).sandbox]
    elif call.sandbox.tenants is not None:  # the server's: its own, then each account's
        sandboxes += [tenant.sandbox for tenant in call.sandbox.tenants]
    selected = [
        delivery
        for sandbox in sandboxes
        for delivery in sandbox.webhooks.journal.select(
            endpoint_id=query.get("endpoint_id"),
            event_id=query.get("event_id"),
            event_type=query.get("event_type"),
            status=status,
        )
    ]
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


async def redeliver(call: ControlCall) -> Response:
    copy = call.control.redeliver(call.params["delivery_id"])
    return json_response(delivery_view(copy), 202)


async def wait(call: ControlCall) -> Response:
    """Wait until every attempt under way has finished (each ends within the delivery timeout);
    `idle` is false if some were still running after `timeout` seconds."""
    timeout = call.sandbox.webhooks.timeout + 5.0
    if await call.body():
        raw = (await call.json()).get("timeout")
        if raw is not None:
            if isinstance(raw, bool) or not isinstance(raw, int | float):
                raise ValidationError("'timeout' must be a number of seconds.", param="timeout")
            if not 0 <= raw <= WAIT_MAX:
                raise ValidationError(
                    f"'timeout' must be from 0 to {WAIT_MAX:g} seconds.", param="timeout"
                )
            timeout = float(raw)
    idle, in_flight = await call.control.settle(timeout)
    return json_response({"idle": idle, "in_flight": in_flight})


async def trigger(call: ControlCall) -> Response:
    body = await call.json()
    made = await call.control.trigger(
        v.required(body, "type"),
        body.get("overrides"),
        body.get("key", DEFAULT_KEY),
        call.request,
        call.own_requests,
    )
    return json_response(made)


async def resend(call: ControlCall) -> Response:
    endpoint_id = None
    if await call.body():
        raw = (await call.json()).get("endpoint_id")
        if raw is not None:
            endpoint_id = v.string(raw, "endpoint_id", max_len=255)
    copies = call.control.resend_event(call.params["evt_id"], endpoint_id)
    return json_response(views.listing([delivery_view(d) for d in copies]), 202)
