"""The inspector's buttons (form POSTs): move the clock, reset, load and unload scenarios,
redeliver a webhook. Each does what its `/_mock` JSON twin does, then answers 303 back to the
page it came from with a notice, so a reload never posts twice and no JavaScript is needed.

Bad input gets the control plane's envelope (422 with `param`) and changes nothing.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.clock import format_ts, parse_ts
from mockserver.core.errors import NotFound, ScenarioError, ValidationError
from mockserver.domain.store import Store
from mockserver.scenarios.loader import load_scenario
from mockserver.web.control_api import TEN_YEARS
from mockserver.web.inspector.pages import scenarios_of, webhooks_of
from mockserver.web.inspector.web import back, form_of, ui


def _seconds(raw: str | None) -> float:
    try:
        seconds = float(raw) if raw is not None else None
    except ValueError:
        seconds = None
    if seconds is None or not 0 <= seconds <= TEN_YEARS:
        raise ValidationError(f"'seconds' must be a number from 0 to {TEN_YEARS}.", param="seconds")
    return seconds


@ui
async def advance_clock(request: Request, store: Store) -> Response:
    seconds = _seconds((await form_of(request)).get("seconds"))
    ran = await store.scheduler.advance_async(seconds)
    now = format_ts(store.clock.now())
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
    if at >= store.clock.now():
        ran = await store.scheduler.run_until_async(at)
    else:
        store.clock.set(at)  # backwards: nothing runs, as POST /_mock/clock/set
        ran = 0
    return back("", notice=f"Clock set to {format_ts(at)}; {ran} timer(s) ran.")


@ui
async def reset(request: Request, store: Store) -> Response:
    store.reset()
    return back("", notice="Reset to the seed.")


@ui
async def load_scenario_named(request: Request, store: Store) -> Response:
    name = (await form_of(request)).get("name", "")
    engine = scenarios_of(request)
    path = engine.path_of(name) if name else None
    if path is None:
        raise NotFound(
            f"No scenario named '{name[:64]}'. Available: {', '.join(engine.available())}.",
            param="name",
        )
    try:
        engine.load(load_scenario(path))
    except ScenarioError as error:
        raise ValidationError(str(error), param="name") from None
    return back("", notice=f"Scenario {name} loaded.")


@ui
async def unload_scenarios(request: Request, store: Store) -> Response:
    count = scenarios_of(request).unload_all()
    return back("", notice=f"{count} scenario(s) unloaded.")


@ui
async def redeliver(request: Request, store: Store) -> Response:
    copy = webhooks_of(request).redeliver(request.path_params["delivery_id"])
    return back("/webhooks", notice=f"Queued {copy.id}, a redelivery of {copy.redelivery_of}.")
