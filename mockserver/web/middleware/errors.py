"""The error envelope: how every step refuses a request, and the `Errors` middleware.

`refuse` turns what a step raised into the error envelope (`render_error`) with the request's
`X-Request-Id`, records why on the request's state (the journal's `explain`), and, when the
request asked with `X-Mock-Explain: 1`, says why in an `X-Mock-Explain` header (the
`check: message` line of `engine/explain.py`, after every header a step above adds but `Date`).
Anything but an `ApiError` is a bug: it is logged, kept for the tests (`Store.errors`), and
answered as a 500 `api_error`.

`Errors` sits below idempotency, so a key stores errors as it stores successes: it adds
`X-Request-Id` to the answer of the steps below it (the scenario rules, the route's endpoint)
and renders what they raise.
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.errors import ApiError, InternalError
from mockserver.engine.envelope import render_error
from mockserver.engine.explain import header_value, refusal, replayed
from mockserver.engine.journal import RequestState
from mockserver.engine.request import Disconnected, HeaderLines, Response
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import send_response

log = logging.getLogger("mockserver")


class Errors:
    """Adds `X-Request-Id`; renders what the steps below raise."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]
        request_id = (b"x-request-id", state.request_id.encode())

        async def with_id(message: Message) -> None:
            if message["type"] == "http.response.start":  # the app below is ours: a list
                message = {**message, "headers": [*message["headers"], request_id]}
            await send(message)

        try:
            await self.app(scope, receive, with_id)
        except TransportFaultError as faulted:
            faulted.response.headers = [*faulted.response.headers, request_id]
            raise
        except Exception as error:
            await refuse(scope["state"]["sandbox"], state, error, send)


def refused(sandbox: SandboxState, state: RequestState, error: Exception) -> Response:
    """The answer to a request refused with `error` (an unexpected one: a logged 500).
    Disconnected is raised again: there is no one to answer."""
    if isinstance(error, Disconnected):
        raise error
    if not isinstance(error, ApiError):
        request = state.request
        log.error(
            "unhandled error in %s %s (%s)",
            request.method,
            state.path,
            state.request_id,
            exc_info=error,
        )
        errors = sandbox.store.errors
        del errors[:-99]  # keep the latest 100
        errors.append(error)
        error = InternalError("An unexpected error occurred on the service side.")
    why = state.explain = refusal(error, state.path)
    response = render_error(error, state.request_id)
    response.headers = [*response.headers, (b"x-request-id", state.request_id.encode())]
    if wants_explain(state.request.headers):
        response.headers.append((b"x-mock-explain", header_value(why)))
    return response


async def refuse(sandbox: SandboxState, state: RequestState, error: Exception, send: Send) -> None:
    """Answer the request refused with `error`."""
    await send_response(refused(sandbox, state, error), send)


def explained_replay(state: RequestState, headers: HeaderLines) -> HeaderLines:
    """The headers of a stored response replayed, with why it was an error when it was one
    and the request asked (the message of its envelope)."""
    replay = state.replayed
    if replay is None or replay[0] < 400 or not wants_explain(state.request.headers):
        return headers
    status, body = replay
    return [*headers, (b"x-mock-explain", header_value(replayed(status, body, state.path)))]


def wants_explain(headers: HeaderLines) -> bool:
    """Whether the request asked for `X-Mock-Explain: 1`."""
    for name, value in headers:
        if name == b"x-mock-explain" and value.strip() == b"1":
            return True
    return False
