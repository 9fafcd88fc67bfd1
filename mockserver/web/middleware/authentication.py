"""The credential and the rate limits of an API request (`engine/traffic.py`), before anything
else reads it: two `Authorization` headers are 401, a credential is resolved once (the
caller, on the request's state), and the request counts in its rate-limit window (429 past
it). Every answer then carries the window's headers, right after its `X-Request-Id` (a
replayed answer's included, before its `Idempotent-Replayed`). `/_mock` requests skip it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.engine.reading import CONTROL_PLANE, credential_headers
from mockserver.engine.request import HeaderLines
from mockserver.engine.request_state import RequestState
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import call_editing
from mockserver.web.middleware.refusal import refuse


class Authentication:
    """Resolves the caller, counts the request, and adds the rate-limit headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]
        if state.path.startswith(CONTROL_PLANE):
            await self.app(scope, receive, send)
            return
        sandbox: SandboxState = scope["state"]["sandbox"]
        request = state.request
        try:
            authorization, keys = credential_headers(request.headers)  # 401 for two
            state.authorization = authorization
            client = request.client[0] if request.client else ""
            admission = sandbox.traffic.admit(
                authorization, keys, request.method, state.path, client
            )
            state.principal = admission.principal
            if admission.refusal is not None:
                state.rule = admission.rule
                raise admission.refusal
        except Exception as error:
            await refuse(sandbox, state, error, send)
            return
        state.idempotency_keys = admission.idempotency_keys
        rate_headers = admission.headers

        def with_rate_headers(headers: HeaderLines) -> HeaderLines:
            at = _after_request_id(headers)
            return [*headers[:at], *rate_headers, *headers[at:]]

        await call_editing(self.app, scope, receive, send, with_rate_headers)


def _after_request_id(headers: HeaderLines) -> int:
    """Where the rate-limit headers go: after the last `X-Request-Id` (the end, if none)."""
    for index in range(len(headers) - 1, -1, -1):
        if headers[index][0] == b"x-request-id":
            return index + 1
    return len(headers)
