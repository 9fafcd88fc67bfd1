"""An `Idempotency-Key` (`engine/kept_responses.py`): a keyed POST holds its key while its body
arrives and it runs, and its answer (headers up to `X-Request-Id`) is kept for the key; the
same key again replays the kept answer with `Idempotent-Replayed` and skips every step below;
a bad key is 400, the key with another body 409, a key in flight 409."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.engine.kept_responses import REPLAYED, Replay, Ticket, claim, unpack_response
from mockserver.engine.request import HeaderLines, Response
from mockserver.engine.request_state import RequestState
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import header_lines, send_response
from mockserver.web.middleware.refusal import refuse


class Idempotency:
    """Replays, refuses, or runs a keyed request holding its key."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: RequestState = scope["state"]["request"]
        principal = state.principal
        if not state.idempotency_keys or principal is None:
            await self.app(scope, receive, send)
            return
        sandbox: SandboxState = scope["state"]["sandbox"]
        request = state.request
        try:
            claimed, parsed = await claim(
                sandbox.traffic,
                principal,
                state.idempotency_keys,
                request.method,
                state.region,
                state.path,
                request.headers,
                state.body,
            )
        except Exception as error:
            await refuse(sandbox, state, error, send)
            return
        if isinstance(parsed, dict):
            state.parsed_body = (state.body_read or b"", parsed)
        if isinstance(claimed, Replay):
            status, headers, body = unpack_response(claimed.response)
            state.replayed = (status, body)
            await send_response(Response(status, [*headers, REPLAYED], body), send)
            return
        if claimed is None:
            await self.app(scope, receive, send)
            return
        await _run_holding(claimed, self.app, scope, receive, send, state)


async def _run_holding(
    ticket: Ticket, app: ASGIApp, scope: Scope, receive: Receive, send: Send, state: RequestState
) -> None:
    """Run the request holding its key, and keep its answer for the key (one whose connection
    breaks before it ran keeps nothing)."""
    status = 0
    headers: HeaderLines = []
    chunks: list[bytes] = []

    async def keeping(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = header_lines(message["headers"])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                ticket.answered(state.operation, status, headers, b"".join(chunks))
        await send(message)

    try:
        await app(scope, receive, keeping)
    except TransportFaultError as faulted:
        response = faulted.response
        if response.fault is not None and response.fault.committed:
            ticket.answered(state.operation, response.status, response.headers, response.body)
        raise
    finally:
        ticket.close()
