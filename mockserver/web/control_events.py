"""The `/_mock/events` control plane: make a webhook event happen, send one again.

POST /_mock/events/trigger {"type", "overrides"?: {FIELD: VALUE}, "key"?}
                                  run the event type's recipe (`triggers.py`) through the app
POST /_mock/events/{evt_id}/resend {"endpoint_id"?}
                                  queue the event again for one endpoint or every subscribed one
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.core.errors import ValidationError
from mockserver.domain import validation as v
from mockserver.domain import views
from mockserver.engine.control import Control
from mockserver.web.body import read_control_json
from mockserver.web.control_api import admin
from mockserver.web.render import json_response
from mockserver.web.self_call import self_caller
from mockserver.web.triggers import trigger as run_trigger
from mockserver.webhooks.deliveries import delivery_view

DEFAULT_KEY = "sk_test_mock_full"
KEY_MAX = 255


async def run_recipe(
    request: Request, event_type: Any, overrides: Any, key: Any = DEFAULT_KEY
) -> dict[str, Any]:
    """Check a trigger's input and run its recipe through the app serving `request` (the
    control endpoint and the inspector's form both come here)."""
    event_type = v.string(event_type, "type", max_len=100)
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, dict):
        raise ValidationError(
            "'overrides' must be an object of data field names to values.", param="overrides"
        )
    key = v.string(key, "key", max_len=KEY_MAX)
    return await run_trigger(event_type, overrides, self_caller(request, key))


@admin
async def trigger(request: Request, control: Control) -> Response:
    body = await read_control_json(request)
    made = await run_recipe(
        request,
        v.required(body, "type"),
        body.get("overrides"),
        body.get("key", DEFAULT_KEY),
    )
    return json_response(made)


@admin
async def resend(request: Request, control: Control) -> Response:
    endpoint_id = None
    if await request.body():
        raw = (await read_control_json(request)).get("endpoint_id")
        if raw is not None:
            endpoint_id = v.string(raw, "endpoint_id", max_len=255)
    copies = control.resend_event(request.path_params["evt_id"], endpoint_id)
    return json_response(views.listing([delivery_view(d) for d in copies]), 202)


def event_routes() -> list[BaseRoute]:
    return [
        Route("/_mock/events/trigger", trigger, methods=["POST"]),
        Route("/_mock/events/{evt_id}/resend", resend, methods=["POST"]),
    ]
