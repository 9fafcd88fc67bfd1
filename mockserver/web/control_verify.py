"""`POST /_mock/requests/verify`: did the client send what a test expected (engine/verify.py).

    {"method"?, "path"?, "key"?, "query"?, "headers"?, "body"?, "status"?,
     "count"? | "at_least"? | "at_most"?, "since_seq"?}
    -> 200 {"ok", "matched", "near_misses": [{"seq", "method", "path", "status",
                                               "differences": [{"field", "expected", "actual"}]}]}

A bad matcher is 422 with `param`. Guarded like the rest of `/_mock`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.engine.control import Control
from mockserver.engine.journal import Journal
from mockserver.engine.verify import parse_matcher, verify
from mockserver.web.body import read_control_json
from mockserver.web.control_api import admin
from mockserver.web.render import json_response


@admin
async def verify_requests(request: Request, control: Control) -> Response:
    matcher = parse_matcher(await read_control_json(request))
    journal: Journal = request.app.state.journal
    return json_response(verify(matcher, journal.entries()))


def verify_routes() -> list[BaseRoute]:
    return [Route("/_mock/requests/verify", verify_requests, methods=["POST"])]
