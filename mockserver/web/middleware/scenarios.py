"""A loaded scenario's rules on an API request (`engine/faults.py`): an injected answer, a
delay, a transport fault, chaos and latency, deprecation headers; only while a scenario has
armed something for the request. An account's request meets its own sandbox's scenarios,
then the server's."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.faults import apply_rules
from mockserver.engine.journal import RequestState
from mockserver.engine.request import Response
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import capture, send_answer


class Scenarios:
    """Lets the scenarios' rules answer, delay or break a request, or pass it on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sandbox: SandboxState = scope["state"]["sandbox"]
        state: RequestState = scope["state"]["request"]
        path, method = state.path, state.request.method
        own, outer = sandbox.scenarios, sandbox.outer_scenarios
        if not path.startswith("/v1") or not (own.active or outer is not None):
            await self.app(scope, receive, send)
            return

        async def inner() -> Response:
            return await capture(self.app, scope, receive)

        async def after_own() -> Response:
            if outer is not None and outer.active:
                return await apply_rules(outer, state, inner)
            return await inner()

        if own.active and own.applies(method, path):
            response = await apply_rules(own, state, after_own)
        elif outer is not None:
            response = await after_own()
        else:
            await self.app(scope, receive, send)
            return
        await send_answer(response, send)
