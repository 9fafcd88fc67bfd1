"""The pure-ASGI layer that applies loaded scenarios to API requests (what they do is
`engine/faults.py`'s and the scenario engine's; this layer reads the request and sends).

It runs inside the pipeline (after the request id is assigned and the regional prefix is
stripped, so injected errors carry a real `req_` id and `X-Request-Id`), only when a scenario
has armed something (a forced rate-limit burst is answered before it, by the engine's traffic
rules). In order:

1. the first rule that fires answers with its status, error envelope or body and headers,
   after its `delay_ms` (a delay without a status just slows the real answer);
2. a deprecated route gets `Deprecation: @<unix>` (RFC 9745) and `Sunset: <IMF-fixdate>`
   (RFC 8594) on every answer, injected ones included.

The name of the rule that answered goes to the journal entry. The request body is read (and
replayed to the app) only when some rule matches on bodies.
"""

from __future__ import annotations

import asyncio
from time import perf_counter
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.errors import ApiError
from mockserver.domain.store import Store
from mockserver.engine.calls import MAX_BODY
from mockserver.engine.explain import header_value
from mockserver.engine.faults import (
    bearer,
    deprecation_headers,
    injected_answer,
    matchable_body,
    refusal,
)
from mockserver.scenarios.engine import MISSING, RequestView, ScenarioEngine
from mockserver.web.context import context_of

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class FaultLayer:
    def __init__(self, app: ASGIApp, store: Store, engine: ScenarioEngine) -> None:
        self.app = app
        self.store = store
        self.engine = engine

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        engine = self.engine
        if scope["type"] != "http" or not engine.active or not scope["path"].startswith("/v1"):
            await self.app(scope, receive, send)
            return
        method: str = scope["method"]
        path: str = scope["path"]
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }
        key = bearer(headers.get("authorization"))
        extra = deprecation_headers(engine.deprecation_for(method, path))

        if engine.rules:
            body: Any = MISSING
            if engine.needs_body and method in _BODY_METHODS:
                raw, receive = await _buffer(receive)
                body = matchable_body(raw)
            view = RequestView(method, path, _query(scope), headers, key, body)
            rule = engine.decide(view)
            if rule is not None:
                context = context_of(scope)  # always set: this layer runs inside the pipeline
                request_id = context.request_id if context is not None else ""
                if context is not None:
                    context.rule = rule.name
                if rule.respond.delay_ms:
                    await hold(rule.respond.delay_ms / 1000)
                if rule.respond.status is not None:
                    status = rule.respond.status
                    if status >= 400 and context is not None:
                        context.explain = refusal(rule, status, path)
                        if headers.get("x-mock-explain", "").strip() == "1":
                            extra = [*extra, (b"x-mock-explain", header_value(context.explain))]
                    status, injected, body_bytes = injected_answer(rule, request_id, extra)
                    start = {"type": "http.response.start", "status": status, "headers": injected}
                    await send(start)
                    await send({"type": "http.response.body", "body": body_bytes})
                    return

        if not extra:
            await self.app(scope, receive, send)
            return

        async def send_deprecated(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        try:
            await self.app(scope, receive, send_deprecated)
        except ApiError as error:  # the pipeline renders it: it renders these headers too
            error.headers.update((k.decode(), v.decode()) for k, v in extra)
            raise


async def hold(seconds: float) -> None:
    """Wait at least `seconds` of wall time, as the journal's `duration_ms` measures it.

    A loop may wake a timer early (uvloop rounds them to the millisecond), so a rule's
    `delay_ms` is a floor only if the shortfall is slept again.
    """
    until = perf_counter() + seconds
    while (left := until - perf_counter()) > 0:
        await asyncio.sleep(left)


def _query(scope: Scope) -> dict[str, str]:
    return dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))


async def _buffer(receive: Receive) -> tuple[bytes | None, Receive]:
    """Read the request body (None past MAX_BODY: too big to match, and the app refuses it
    with 413), and a receive that hands what was read to the app, then the rest."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more and size <= MAX_BODY:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
    raw = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": raw, "more_body": more}
        return await receive()

    return (None if more or size > MAX_BODY else raw), replay
