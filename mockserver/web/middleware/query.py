"""The query's form and the routed region: a malformed query string is 400, and the region
the request is routed to (a `/us/v1` or `/eu/v1` prefix, a regional `Host`, or the caller's
default) goes on the request's state (`engine/reading.py`)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.reading import check_query, routed_region
from mockserver.engine.request_state import RequestState
from mockserver.web.middleware.refusal import refuse


class Query:
    """Checks the query string and routes the request to its region."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            state: RequestState = scope["state"]["request"]
            request = state.request
            try:
                check_query(request.query)
                state.region = routed_region(
                    request.headers, request.method, state.path, state.path_region
                )
            except Exception as error:
                await refuse(scope["state"]["sandbox"], state, error, send)
                return
        await self.app(scope, receive, send)
