"""The error envelope: how every step refuses a request, and the `Errors` middleware.

`refuse` turns what a step raised into the error envelope (`render_error`) with the request's
`X-Request-Id`, records why on the request's state (the journal's `explain`), and, when the
request asked with `X-Mock-Explain: 1`, says why in an `X-Mock-Explain` header (the
`check: message` line of `engine/explain.py`, after every header a step above adds but `Date`).
Anything but an `ApiError` is a bug: it is logged, kept for the tests (`Store.errors`), and
answered as a 500 `api_error`.

`Errors` sits below idempotency, so a key stores errors as it stores successes: it adds
`X-Request-Id` and the rate-limit window's headers to the answer of the steps below it (the
scenario rules, the route's endpoint) and renders what they raise. A refusal carries the same
two, then its `X-Mock-Explain`.
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

REPLAYED = (b"idempotent-replayed", b"true")


class Errors:
    """Adds `X-Request-Id` and the rate-limit headers; renders what the steps below raise."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]

        async def identified(message: Message) -> None:
            if message["type"] == "http.response.start":  # the app below is ours: a list
                message = {**message, "headers": identify(state, message["headers"])}
            await send(message)

        try:
            await self.app(scope, receive, identified)
        except TransportFaultError as faulted:
            faulted.response.headers = identify(state, faulted.response.headers)
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
    response.headers = identify(state, response.headers)
    if wants_explain(state.request.headers):
        response.headers.append((b"x-mock-explain", header_value(why)))
    return response


def identify(state: RequestState, headers: HeaderLines) -> HeaderLines:
    """`headers`, then the request's `X-Request-Id` and its rate-limit window's headers."""
    return [*headers, (b"x-request-id", state.request_id.encode()), *state.rate_headers]


async def refuse(sandbox: SandboxState, state: RequestState, error: Exception, send: Send) -> None:
    """Answer the request refused with `error`."""
    await send_response(refused(sandbox, state, error), send)


def replayed_headers(state: RequestState, stored: HeaderLines) -> HeaderLines:
    """The headers of a stored response replayed: the stored ones, `Idempotent-Replayed`, and
    why it was an error when it was one and the request asked (its envelope's message); this
    request's rate-limit headers go right after the stored `X-Request-Id` (at the end, if none).
    """
    headers = [*stored, REPLAYED]
    replay = state.replayed
    if replay is not None and replay[0] >= 400 and wants_explain(state.request.headers):
        status, body = replay
        headers.append((b"x-mock-explain", header_value(replayed(status, body, state.path))))
    at = len(headers)
    for index in range(len(stored) - 1, -1, -1):
        if stored[index][0] == b"x-request-id":
            at = index + 1
            break
    return [*headers[:at], *state.rate_headers, *headers[at:]]


def wants_explain(headers: HeaderLines) -> bool:
    """Whether the request asked for `X-Mock-Explain: 1`."""
    for name, value in headers:
        if name == b"x-mock-explain" and value.strip() == b"1":
            return True
    return False
