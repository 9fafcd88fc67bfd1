"""The `/_mock` control plane: reset, the clock, legal hold.

Not part of the v1 contract. Off with `--no-admin` (the routes are not mounted at all) and, with
`--admin-token`, every call must carry `X-Mock-Admin-Token`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.core.clock import parse_ts
from mockserver.core.errors import AuthenticationError, ValidationError
from mockserver.core.secrets import same_secret
from mockserver.domain import validation as v
from mockserver.engine.control import Control
from mockserver.web.body import read_control_json
from mockserver.web.context import control_of
from mockserver.web.render import json_response

AdminHandler = Callable[[Request, Control], Awaitable[Response]]


def admin(handler: AdminHandler) -> Callable[[Request], Awaitable[Response]]:
    """Check the admin token (when one is set) before running a control-plane handler."""

    @wraps(handler)
    async def run(request: Request) -> Response:
        check_admin_token(request, request.headers.get("x-mock-admin-token", ""))
        return await handler(request, control_of(request))

    return run


def check_admin_token(request: Request, given: str) -> None:
    """401 unless no admin token is set or `given` is it (compared in constant time)."""
    token: str | None = request.app.state.settings.admin_token
    if token is not None and not same_secret(given, token):
        raise AuthenticationError(
            "The /_mock control plane needs a valid X-Mock-Admin-Token header."
        )


@admin
async def reset(request: Request, control: Control) -> Response:
    state = control.reset()
    return json_response({"reset": True, **state.as_json()})


@admin
async def get_clock(request: Request, control: Control) -> Response:
    return json_response(control.clock().as_json())


@admin
async def advance_clock(request: Request, control: Control) -> Response:
    body = await read_control_json(request)
    seconds = v.required(body, "seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise ValidationError("'seconds' must be a number.", param="seconds")
    state, ran = await control.advance(seconds)  # awaits webhook attempts it runs
    return json_response({**state.as_json(), "timers_run": ran})


@admin
async def set_clock(request: Request, control: Control) -> Response:
    body = await read_control_json(request)
    raw = v.required(body, "at")
    try:
        at = parse_ts(raw) if isinstance(raw, str) else None
    except (ValueError, OverflowError):
        at = None
    if at is None:
        raise ValidationError("'at' must be an RFC 3339 timestamp.", param="at")
    state, ran = await control.set_clock(at)
    return json_response({**state.as_json(), "timers_run": ran})


@admin
async def legal_hold(request: Request, control: Control) -> Response:
    doc_id = request.path_params["doc_id"]
    body = await read_control_json(request)
    on = v.required(body, "on")
    if not isinstance(on, bool):
        raise ValidationError("'on' must be true or false.", param="on")
    doc = control.legal_hold(doc_id, on)
    return json_response({"id": doc.id, "legal_hold": doc.legal_hold})


def admin_routes() -> list[BaseRoute]:
    return [
        Route("/_mock/reset", reset, methods=["POST"]),
        Route("/_mock/clock", get_clock, methods=["GET"]),
        Route("/_mock/clock/advance", advance_clock, methods=["POST"]),
        Route("/_mock/clock/set", set_clock, methods=["POST"]),
        Route("/_mock/documents/{doc_id}/legal_hold", legal_hold, methods=["POST"]),
    ]
