"""Requests still running when a server's shutdown grace ends: 503 `api_error`, "the server is
stopping", and no traceback in the log.

When the grace ends (`server.GRACE`), uvicorn's shutdown (and the test servers' `PromptServer`)
cancels the tasks of the requests still being answered. uvicorn would log the cancellation
with its traceback, as an exception of the app, and answer 500 `Internal Server Error` in plain
text. `AnswerWhenStopped` is the app as the servers serve it: a request cancelled before its
answer began gets the API's error envelope instead, closing the connection, and the task ends
as an answered request (uvicorn cancels a request's task only at shutdown, so a cancellation
here is one). One whose answer had begun (a scenario's slowly dripped body) can only be cut
short: uvicorn closes its connection, with one line and no traceback.
"""

from __future__ import annotations

import asyncio

from mockserver.core.errors import ServiceUnavailable
from mockserver.engine.envelope import render_error
from mockserver.serving.asgi import ASGIApp, Message, Receive, Scope, Send

STOPPING = "the server is stopping"


class AnswerWhenStopped:
    """`app`, answering 503 to a request cancelled by the server's shutdown."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except asyncio.CancelledError:
            if started:
                return  # nothing more can be said: uvicorn closes the connection
            # No request id: the request's own went with the steps that were cancelled.
            response = render_error(ServiceUnavailable(STOPPING), "")
            headers = [*response.headers, (b"connection", b"close")]
            await send(
                {"type": "http.response.start", "status": response.status, "headers": headers}
            )
            await send({"type": "http.response.body", "body": response.body})
