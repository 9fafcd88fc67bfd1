"""The inspector's buttons (form POSTs): watch an account, move the clock, reset, load and
unload scenarios, redeliver a webhook, trigger an event, resend one. Each but the first does
what its `/_mock` JSON twin does, then answers 303 back to the page it came from with a
notice, so a reload never posts twice and no JavaScript is needed. Anything that changes what
the inspector does is one of these POSTs, so no link, image or frame of another page can.

Bad input gets the control plane's envelope (422 with `param`) and changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.clock import format_ts, parse_ts
from mockserver.core.errors import ScenarioError, ValidationError
from mockserver.engine.control import TEN_YEARS
from mockserver.engine.control_plane.triggers import parse_override
from mockserver.engine.control_plane.webhooks import DEFAULT_KEY
from mockserver.web.adapter import own_requests
from mockserver.web.context import WATCH, control_of, server_of
from mockserver.web.inspector.bridge import ORIGIN
from mockserver.web.inspector.web import back, form_of, ui

if TYPE_CHECKING:
    from mockserver.domain.store import Store


def _seconds(raw: str | None) -> float:
    try:
        seconds = float(raw) if raw is not None else None
    except ValueError:
        seconds = None
    if seconds is None or not 0 <= seconds <= TEN_YEARS:
        raise ValidationError(f"'seconds' must be a number from 0 to {TEN_YEARS}.", param="seconds")
    return seconds


@ui
async def watch(request: Request, store: Store) -> Response:
    """Watch one account (the form's `account`), or the whole server again (no account): the
    choice is the `mock_watch` cookie every page reads."""
    asked = (await form_of(request)).get("account", "")
    response = back("")
    if not asked:
        response.delete_cookie(WATCH, path="/_mock")
        return response
    tenants = server_of(request).tenants
    if tenants is not None:  # the server's sandbox always has them
        tenants.get(asked)  # 404 for no such account, 409 for a seeded one
    response.set_cookie(WATCH, asked, samesite="strict", path="/_mock")
    return response


@ui
async def advance_clock(request: Request, store: Store) -> Response:
    seconds = _seconds((await form_of(request)).get("seconds"))
    state, ran = await control_of(request).advance(seconds)
    now = format_ts(state.now)
    return back("", notice=f"Clock advanced {seconds:g} s to {now}; {ran} timer(s) ran.")


@ui
async def set_clock(request: Request, store: Store) -> Response:
    raw = (await form_of(request)).get("at", "").strip()
    try:
        at = parse_ts(raw) if raw else None
    except (ValueError, OverflowError):
        at = None
    if at is None:
        raise ValidationError("'at' must be an RFC 3339 timestamp.", param="at")
    _, ran = await control_of(request).set_clock(at)
    return back("", notice=f"Clock set to {format_ts(at)}; {ran} timer(s) ran.")


@ui
async def reset(request: Request, store: Store) -> Response:
    control_of(request).reset()
    return back("", notice="Reset to the seed.")


@ui
async def load_scenario_named(request: Request, store: Store) -> Response:
    name = (await form_of(request)).get("name", "")
    try:
        control_of(request).load_scenario(name)
    except ScenarioError as error:
        raise ValidationError(str(error), param="name") from None
    return back("", notice=f"Scenario {name} loaded.")


@ui
async def unload_scenarios(request: Request, store: Store) -> Response:
    count = control_of(request).unload_scenarios()
    return back("", notice=f"{count} scenario(s) unloaded.")


@ui
async def redeliver(request: Request, store: Store) -> Response:
    copy = control_of(request).redeliver(request.path_params["delivery_id"])
    return back("/webhooks", notice=f"Queued {copy.id}, a redelivery of {copy.redelivery_of}.")


@ui
async def resend_event(request: Request, store: Store) -> Response:
    event_id = request.path_params["evt_id"]
    copies = control_of(request).resend_event(event_id)
    queued = ", ".join(copy.id for copy in copies)
    return back("/webhooks", notice=f"Queued {queued}: {event_id} sent again.")


@ui
async def trigger(request: Request, store: Store) -> Response:
    """The trigger form: an event type, `FIELD=VALUE` overrides one a line, and a key."""
    form = await form_of(request)
    overrides = {}
    for number, line in enumerate(form.get("overrides", "").splitlines(), 1):
        if line.strip():
            try:
                name, value = parse_override(line.strip())
            except ValueError as error:
                message = f"Overrides, line {number}: {error}."
                raise ValidationError(message, param="overrides") from None
            overrides[name] = value
    made = await control_of(request).trigger(
        form.get("type", ""),
        overrides,
        form.get("key") or DEFAULT_KEY,
        request.scope[ORIGIN],
        own_requests(request.scope["app"]),
    )
    events = ", ".join(made["event_ids"])
    objects = ", ".join(made["objects"].values())
    return back("/webhooks", notice=f"Triggered {made['event_type']}: {events} (made {objects}).")
