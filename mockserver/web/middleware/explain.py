"""`X-Mock-Explain: 1` asks why a request was refused: the answer then carries the
`check: message` line (`engine/explain.py`) after every header but `Date`: for an error a step
raised, and for a replayed error answer (what the kept answer says)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.explain import header_value, replayed, wants_header
from mockserver.engine.request import HeaderLines
from mockserver.engine.request_state import RequestState
from mockserver.web.adapter import call_editing


class Explain:
    """Adds `X-Mock-Explain` to a refused answer when the request asks for it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]
        if not wants_header(state.request.headers):
            await self.app(scope, receive, send)
            return

        def explained(headers: HeaderLines) -> HeaderLines:
            if state.refused and state.explain is not None:
                return [*headers, (b"x-mock-explain", header_value(state.explain))]
            if state.replayed:
                status, body = state.replayed
                if status >= 400:
                    line = header_value(replayed(status, body, state.path))
                    return [*headers, (b"x-mock-explain", line)]
            return headers

        await call_editing(self.app, scope, receive, send, explained)
