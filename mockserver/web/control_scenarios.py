"""The control plane's scenario, journal and account endpoints (docs/reference/control-plane.md).

    POST   /_mock/scenarios   {"name": "legal_hold"} or {"yaml": "...", "source"?: "file.yaml"}
    GET    /_mock/scenarios   loaded scenarios (with rule counters) and the shipped names
    DELETE /_mock/scenarios   disarm every rule, fault, deprecation and timeline
    GET    /_mock/requests    the request journal, newest first, filtered
    POST   /_mock/accounts    {"region"?: "us"|"eu", "name"?} -> a fresh isolated account

Guarded like the rest of `/_mock` (the admin token), and mounted only with the control plane.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.core.errors import ScenarioError, ValidationError
from mockserver.domain import validation as v
from mockserver.domain.accounts import NAME_MAX
from mockserver.domain.models import REGIONS
from mockserver.engine.control import Control
from mockserver.engine.journal import Journal
from mockserver.scenarios.engine import Loaded
from mockserver.web.body import read_control_json
from mockserver.web.control_api import admin
from mockserver.web.render import json_response

YAML_MAX = 512 * 1024
JOURNAL_PAGE_MAX = 10_000


@admin
async def load(request: Request, control: Control) -> Response:
    """Load one scenario; a bad one is 422 with its `file:line: message`, and changes nothing."""
    body = await read_control_json(request)
    name, text = body.get("name"), body.get("yaml")
    if (name is None) == (text is None):
        raise ValidationError("Send exactly one of 'name' or 'yaml'.", param="name")
    try:
        if name is not None:
            name = v.string(name, "name", max_len=64)
            loaded = control.load_scenario(name)
        else:
            text = v.string(text, "yaml", max_len=YAML_MAX)
            source = v.string(body.get("source", "<inline>"), "source", max_len=255)
            loaded = control.load_scenario_text(text, source)
    except ScenarioError as error:
        raise ValidationError(str(error), param="yaml" if text is not None else "name") from None
    return json_response(_loaded(control, loaded), status=201)


def _loaded(control: Control, loaded: Loaded) -> dict[str, Any]:
    described: dict[str, Any] = next(
        item for item in control.scenarios()["data"] if item["name"] == loaded.scenario.name
    )
    return described


@admin
async def list_scenarios(request: Request, control: Control) -> Response:
    return json_response(control.scenarios())


@admin
async def unload(request: Request, control: Control) -> Response:
    return json_response({"unloaded": control.unload_scenarios()})


@admin
async def requests(request: Request, control: Control) -> Response:
    """The journal, newest first; filters method, path (a prefix), status, key; `limit`."""
    query = request.query_params
    journal: Journal = request.app.state.journal
    status_text = query.get("status")
    status = None
    if status_text is not None:
        if not status_text.isdigit() or not 100 <= int(status_text) <= 599:
            raise ValidationError("'status' must be an HTTP status code.", param="status")
        status = int(status_text)
    method = query.get("method")
    entries = journal.find(
        method=None if method is None else method.upper(),
        path=query.get("path"),
        status=status,
        key=query.get("key"),
        limit=v.limit(query.get("limit"), default=100, maximum=JOURNAL_PAGE_MAX),
    )
    return json_response(
        {"object": "list", "data": [entry.render() for entry in entries], "total": len(journal)}
    )


@admin
async def new_account(request: Request, control: Control) -> Response:
    """A fresh account with its keys; an empty body means the defaults."""
    raw = await request.body()
    body: dict[str, Any] = {}
    if raw.strip():
        body = await read_control_json(request)
    region = v.choice(body.get("region", "us"), "region", REGIONS)
    name = body.get("name")
    if name is not None:
        name = v.string(name, "name", max_len=NAME_MAX)
    made = control.new_account(region, name)
    account = made.account
    return json_response(
        {
            "id": account.id,
            "object": "account",
            "name": account.name,
            "default_region": account.default_region,
            "environment": "sandbox",
            "keys": {"full": made.full.key, "readonly": made.readonly.key},
            "users": [
                {"email": user.email, "permissions": list(user.permissions)}
                for user in account.users
            ],
        },
        status=201,
    )


def scenario_routes() -> list[BaseRoute]:
    return [
        Route("/_mock/scenarios", load, methods=["POST"]),
        Route("/_mock/scenarios", list_scenarios, methods=["GET"]),
        Route("/_mock/scenarios", unload, methods=["DELETE"]),
        Route("/_mock/requests", requests, methods=["GET"]),
        Route("/_mock/accounts", new_account, methods=["POST"]),
    ]
