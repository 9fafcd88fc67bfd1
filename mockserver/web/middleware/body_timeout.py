"""A request body that stops arriving: 408 `bad_request`, and the connection closed.

The server's guard (`serving/guard.py`) bounds the time a request head may take; once the head
is in, the body comes through ASGI's `receive()`, and nothing bounded how long a step waits for
it. Here every wait for a part of the body is held to `seconds` (the first part counted from
when a step asks for it, so from the head; each next part from the one before): past it the
step that was reading gets `RequestTimeout`, which the steps below render as the error envelope
like any refusal (with the request id, in the journal). An answer to a timed-out request says
`Connection: close`, so the server closes the connection rather than wait for the rest of the
body. A refusal no step below renders (a durable sandbox reads the body before its request id is
drawn) is rendered here, with no request id. Once the body is whole, `receive()` passes through
untimed: it then only waits for the client to leave.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.errors import RequestTimeout
from mockserver.engine.envelope import render_error
from mockserver.engine.request import HeaderLines
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import send_response

CLOSE = (b"connection", b"close")


class BodyTimeout:
    """Holds each wait for a part of the request body to `seconds`."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        seconds = self.seconds
        whole = False  # the body has all arrived (or the client has gone)
        late: RequestTimeout | None = None
        started = False  # the answer's head has been sent

        async def timed() -> Message:
            nonlocal whole, late
            if whole:
                return await receive()
            if late is not None:
                return {"type": "http.disconnect"}
            try:
                async with asyncio.timeout(seconds):
                    message = await receive()
            except TimeoutError:
                late = RequestTimeout(
                    f"The request body took too long: no part of it arrived for {seconds:g} s."
                )
                raise late from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                whole = True
            return message

        def closing(headers: HeaderLines) -> HeaderLines:
            nonlocal started
            started = True
            return [*headers, CLOSE] if late is not None else headers

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": closing(message["headers"])}
            await send(message)

        try:
            await self.app(scope, timed, sent)
        except TransportFaultError as faulted:  # in-process: its caller acts it out
            faulted.response.headers = closing(faulted.response.headers)
            raise
        except RequestTimeout as error:
            if error is not late or started:
                raise
            response = render_error(error, "")
            response.headers = [*response.headers, CLOSE]
            await send_response(response, send)
