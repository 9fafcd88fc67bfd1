"""`/_mock` scenarios and the request journal (docs/reference/control-plane.md).

POST   /_mock/scenarios   {"name": "legal_hold"} or {"yaml": "...", "source"?: "file.yaml",
                          "replace"?: true (swap a loaded one's rules, keep data and clock)}
GET    /_mock/scenarios   loaded scenarios (with rule counters) and the shipped names
DELETE /_mock/scenarios   disarm every rule, fault, deprecation and timeline
                          (?name=N: of that scenario only)
GET    /_mock/requests    the request journal, newest first, filtered
POST   /_mock/requests/verify   did the client send what a test expected (engine/verify.py)
"""

from __future__ import annotations

from typing import Any

from mockserver.core.errors import ScenarioError, ValidationError
from mockserver.domain import validation as v
from mockserver.engine.answers import json_response
from mockserver.engine.control_plane.call import ControlCall
from mockserver.engine.request import Response
from mockserver.engine.verify import parse_matcher, verify

YAML_MAX = 512 * 1024
JOURNAL_PAGE_MAX = 10_000


async def load(call: ControlCall) -> Response:
    """Load one scenario; a bad one is 422 with its `file:line: message`, and changes nothing."""
    body = await call.json()
    control = call.control
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
            replace = body.get("replace", False)
            if not isinstance(replace, bool):
                raise ValidationError("'replace' must be true or false.", param="replace")
            loaded = control.load_scenario_text(text, source, replace=replace)
    except ScenarioError as error:
        raise ValidationError(str(error), param="yaml" if text is not None else "name") from None
    described: dict[str, Any] = next(
        item for item in control.scenarios()["data"] if item["name"] == loaded.scenario.name
    )
    return json_response(described, status=201)


async def list_scenarios(call: ControlCall) -> Response:
    return json_response(call.control.scenarios())


async def unload(call: ControlCall) -> Response:
    """Unload every scenario, or (`?name=`) the one of that name: 404 when none is loaded."""
    name = call.query.get("name")
    if name is None:
        return json_response({"unloaded": call.control.unload_scenarios()})
    call.control.unload_scenario(v.string(name, "name", max_len=255))
    return json_response({"unloaded": 1})


async def requests(call: ControlCall) -> Response:
    """The journal, newest first; filters method, path (a prefix), status, key, request_id,
    seq; `limit`."""
    query = call.query
    journal = call.sandbox.journal
    status_text = query.get("status")
    status = None
    if status_text is not None:
        if not status_text.isdigit() or not 100 <= int(status_text) <= 599:
            raise ValidationError("'status' must be an HTTP status code.", param="status")
        status = int(status_text)
    method = query.get("method")
    seq_text = query.get("seq")
    seq = None
    if seq_text is not None:
        if not seq_text.isdigit() or len(seq_text) > 18:
            raise ValidationError("'seq' must be a journal sequence number.", param="seq")
        seq = int(seq_text)
    request_id = query.get("request_id")
    if request_id is not None:
        request_id = v.string(request_id, "request_id", max_len=255)
    entries = journal.find(
        method=None if method is None else method.upper(),
        path=query.get("path"),
        status=status,
        key=query.get("key"),
        account=query.get("account"),
        request_id=request_id,
        seq=seq,
        limit=v.limit(query.get("limit"), default=100, maximum=JOURNAL_PAGE_MAX),
    )
    return json_response(
        {"object": "list", "data": [entry.render() for entry in entries], "total": len(journal)}
    )


async def verify_requests(call: ControlCall) -> Response:
    """A bad matcher is 422 with `param`."""
    matcher = parse_matcher(await call.json())
    return json_response(verify(matcher, call.sandbox.journal.entries()))
