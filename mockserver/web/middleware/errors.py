"""The answer of the request's operation as the client sees it: `X-Request-Id` on it, and an
error raised below (the scenario rules, the route's endpoint) rendered as the error envelope
(`refusal.py`), so an idempotency key keeps errors as it keeps successes."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.request import HeaderLines
from mockserver.engine.request_state import RequestState
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import call_editing
from mockserver.web.middleware.refusal import refuse, with_request_id


class Errors:
    """Adds `X-Request-Id`; renders what the steps below raise."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]
        request_id = state.request_id

        def with_id(headers: HeaderLines) -> HeaderLines:
            return with_request_id(headers, request_id)

        try:
            await call_editing(self.app, scope, receive, send, with_id)
        except TransportFaultError:
            raise
        except Exception as error:
            await refuse(scope["state"]["sandbox"], state, error, send)
