"""The pure-ASGI layer that applies loaded scenarios to API requests.

It runs inside the pipeline (after the request id is assigned and the regional prefix is
stripped, so injected errors carry a real `req_` id and `X-Request-Id`), only when a scenario
has armed something. In order:

1. a forced rate-limit burst answers 429 `rate_limit_error` with `Retry-After` and
   `X-RateLimit-Limit` (the credential's plan), `-Remaining: 0` and `-Reset` (the burst's end);
2. the first rule that fires answers with its status, error envelope or body and headers,
   after its `delay_ms` (a delay without a status just slows the real answer);
3. a deprecated route gets `Deprecation: @<unix>` (RFC 9745) and `Sunset: <IMF-fixdate>`
   (RFC 8594) on every answer, injected ones included.

The name of the rule that answered goes to the journal entry. The request body is read (and
replayed to the app) only when some rule matches on bodies.
"""

from __future__ import annotations

import asyncio
from time import perf_counter
from typing import Any
from urllib.parse import parse_qsl

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.clock import http_date
from mockserver.core.errors import ApiError
from mockserver.domain.store import Store
from mockserver.engine.calls import MAX_BODY
from mockserver.engine.explain import Refusal, header_value
from mockserver.scenarios.engine import MISSING, RequestView, ScenarioEngine
from mockserver.scenarios.model import ERROR_TYPES, Deprecation, Rule
from mockserver.web.context import context_of
from mockserver.web.render import JSON, envelope_bytes

Headers = list[tuple[bytes, bytes]]
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
        key = _bearer(headers.get("authorization"))
        extra = _deprecation_headers(engine.deprecation_for(method, path))

        if engine.rules:
            body: Any = MISSING
            if engine.needs_body and method in _BODY_METHODS:
                raw, receive = await _buffer(receive)
                body = _json(raw)
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
                        context.explain = _refusal(rule, status, path)
                        if headers.get("x-mock-explain", "").strip() == "1":
                            extra = [*extra, (b"x-mock-explain", header_value(context.explain))]
                    await _send_injected(send, request_id, rule, extra)
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


def _refusal(rule: Rule, status: int, path: str) -> Refusal:
    """What the journal keeps of an error answer injected by `rule` (see engine.explain)."""
    error = rule.respond.error
    message = error.message if error else f"Injected by scenario rule '{rule.name}'."
    reason = {"check": "scenario", "rule": rule.name, "scenario": rule.scenario}
    return (reason, message, None, status, path)


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token and " " not in token else None


def _query(scope: Scope) -> dict[str, str]:
    return dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))


def _json(raw: bytes | None) -> Any:
    if raw is None or not raw.strip():
        return MISSING
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return MISSING


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


def _deprecation_headers(item: Deprecation | None) -> Headers:
    if item is None:
        return []
    deprecation = f"@{item.deprecation}".encode()
    headers = [(b"deprecation", deprecation), (b"sunset", http_date(item.sunset))]
    if item.link:
        headers.append((b"link", f'<{item.link}>; rel="deprecation"'.encode()))
    return headers


async def _send(send: Send, status: int, body: bytes, headers: Headers) -> None:
    all_headers = [*headers]
    if body or status not in (204, 304):
        all_headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": body})


async def _send_injected(send: Send, request_id: str, rule: Rule, extra: Headers) -> None:
    respond = rule.respond
    status = respond.status or 200
    headers: Headers = []
    body = b""
    if respond.error is not None or (not respond.has_body and status >= 400):
        error = respond.error
        kind = error.type if error else ERROR_TYPES.get(status, "api_error")
        message = error.message if error else f"Injected by scenario rule '{rule.name}'."
        param = error.param if error else None
        body = envelope_bytes(kind, message, param, request_id)
        headers.append((b"content-type", JSON.encode()))
    elif respond.has_body:
        body = orjson.dumps(respond.body)
        headers.append((b"content-type", JSON.encode()))
    given = {name.lower() for name in respond.headers}
    if status == 429 and "retry-after" not in given:
        headers.append((b"retry-after", b"1"))
    if given & {"content-type"}:
        headers = [h for h in headers if h[0] != b"content-type"]
    headers += [(name.lower().encode(), value.encode()) for name, value in respond.headers.items()]
    await _send(send, status, body, [*headers, *extra])
