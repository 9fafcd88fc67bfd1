"""`/_mock` reset, the clock and legal hold (docs/reference/control-plane.md)."""

from __future__ import annotations

from mockserver.core.clock import parse_ts
from mockserver.core.errors import ValidationError
from mockserver.domain import validation as v
from mockserver.engine.answers import json_response
from mockserver.engine.control_plane.call import ControlCall
from mockserver.engine.request import Response


async def reset(call: ControlCall) -> Response:
    state = call.control.reset()
    return json_response({"reset": True, **state.as_json()})


async def get_clock(call: ControlCall) -> Response:
    return json_response(call.control.clock().as_json())


async def advance_clock(call: ControlCall) -> Response:
    body = await call.json()
    seconds = v.required(body, "seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise ValidationError("'seconds' must be a number.", param="seconds")
    state, ran = await call.control.advance(seconds)  # awaits webhook attempts it runs
    return json_response({**state.as_json(), "timers_run": ran})


async def set_clock(call: ControlCall) -> Response:
    body = await call.json()
    raw = v.required(body, "at")
    try:
        at = parse_ts(raw) if isinstance(raw, str) else None
    except (ValueError, OverflowError):
        at = None
    if at is None:
        raise ValidationError("'at' must be an RFC 3339 timestamp.", param="at")
    state, ran = await call.control.set_clock(at)
    return json_response({**state.as_json(), "timers_run": ran})


async def legal_hold(call: ControlCall) -> Response:
    body = await call.json()
    on = v.required(body, "on")
    if not isinstance(on, bool):
        raise ValidationError("'on' must be true or false.", param="on")
    doc = call.control.legal_hold(call.params["doc_id"], on)
    return json_response({"id": doc.id, "legal_hold": doc.legal_hold})
