"""A request refused by a middleware: the one way every step answers an error.

`refuse` turns what a step raised into the error envelope (`render_error`) with the request's
`X-Request-Id`, and records why on the request's state (the journal's `explain`; the
`X-Mock-Explain` header, when asked, is `Explain`'s). Anything but an `ApiError` is a bug: it
is logged, kept for the tests (`Store.errors`), and answered as a 500 `api_error`.
"""

from __future__ import annotations

import logging

from starlette.types import Send

from mockserver.core.errors import ApiError, InternalError
from mockserver.engine.envelope import render_error
from mockserver.engine.explain import refusal
from mockserver.engine.request import Disconnected, HeaderLines, Response
from mockserver.engine.request_state import RequestState
from mockserver.engine.sandbox import SandboxState
from mockserver.web.adapter import send_response

log = logging.getLogger("mockserver")


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
    state.explain = refusal(error, state.path)
    state.refused = True
    response = render_error(error, state.request_id)
    response.headers = with_request_id(response.headers, state.request_id)
    return response


async def refuse(sandbox: SandboxState, state: RequestState, error: Exception, send: Send) -> None:
    """Answer the request refused with `error`."""
    await send_response(refused(sandbox, state, error), send)


def with_request_id(headers: HeaderLines, request_id: str) -> HeaderLines:
    """`headers`, then the request's `X-Request-Id`."""
    return [*headers, (b"x-request-id", request_id.encode())]
