"""An `Idempotency-Key` (the rules are `domain/idempotency.py`'s; this is the request's side of
them): a keyed POST holds its key before its body is read (so a retry sent while this body is
still arriving is refused as in flight rather than run twice), reads the body, and then is
refused (400 for a bad key, 409 for a key in flight or another body), answered again from the
stored response with `Idempotent-Replayed` (every step below skipped), or run holding its key,
its answer (headers up to `X-Request-Id`) stored for the key. A body over the size limit runs
as if it had no key: the operation answers 413 and nothing is stored."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.domain.idempotency import Hold, unpack_response
from mockserver.engine.journal import RequestState
from mockserver.engine.request import MAX_BODY, HeaderLines, Response
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import send_response
from mockserver.web.middleware.errors import refuse, replayed_headers


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
        store = sandbox.store
        records = store.idempotency
        request = state.request
        try:
            oversized = _declared(request.headers) > MAX_BODY
            hold = records.hold(principal, state.idempotency_keys, oversized, state.arrived)
            if hold is not None:
                try:
                    body = await state.body(MAX_BODY)
                except BaseException:
                    records.release(hold)
                    raise
                if len(body) > MAX_BODY:  # over the size limit: the operation answers 413
                    records.release(hold)
                    hold = None
            if hold is None:  # runs as if it had no key; nothing is stored
                value = stored = None
            else:
                account = store.accounts.get(principal.account_id)
                region = state.region or (account.default_region if account else "")
                value, stored = records.settle(
                    hold, principal, request.method, region, state.path, body, store.clock.now
                )
        except Exception as error:
            await refuse(sandbox, state, error, send)
            return
        if hold is None:
            await self.app(scope, receive, send)
            return
        if type(value) is dict:  # the operation need not parse these bytes again
            state.parsed_body = (body, value)
        if stored is not None:
            status, headers, replay_body = unpack_response(stored)
            state.replayed = (status, replay_body)
            headers = replayed_headers(state, headers)
            await send_response(Response(status, headers, replay_body), send)
            return
        await self._run_holding(hold, scope, receive, send, state, sandbox)

    async def _run_holding(
        self,
        hold: Hold,
        scope: Scope,
        receive: Receive,
        send: Send,
        state: RequestState,
        sandbox: SandboxState,
    ) -> None:
        """Run the request holding its key, and store its answer for the key (one whose
        connection breaks before it ran stores nothing)."""
        store = sandbox.store
        status = 0
        headers: HeaderLines = []
        chunks: list[bytes] = []

        async def storing(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = message["headers"]  # the app below is ours: a list of pairs
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False) and hold.record is not None:
                    body = b"".join(chunks)
                    now = store.clock.now()
                    store.idempotency.answered(hold, state.operation, status, headers, body, now)
            await send(message)

        try:
            await self.app(scope, receive, storing)
        except TransportFaultError as faulted:
            response = faulted.response
            fault = response.fault
            if fault is not None and fault.committed and hold.record is not None:
                now = store.clock.now()
                store.idempotency.answered(
                    hold, state.operation, response.status, response.headers, response.body, now
                )
            raise
        finally:
            if hold.record is not None:  # it stored nothing: let the key go
                store.idempotency.release(hold)


def _declared(headers: HeaderLines) -> int:
    """The first `Content-Length` the request declares (0 when absent or not a number)."""
    for name, value in headers:
        if name == b"content-length":
            return int(value) if value.isdigit() else 0
    return 0
