"""What a loaded scenario does to an API request: the rule that answers it (`apply_rules`),
failing that the chaos rule that hits it, chaos latency (`chaos`), the rule's injected answer
or transport fault (`faulted`: the fault rides on the response, for the HTTP adapter or the
in-process transport to act out), the deprecation headers of a route, the explanation an
injected error gets, and the request's facts as the rules match them. Middleware applies the rules
only while a scenario has armed something, after the request id is assigned and the regional
prefix is stripped (so injected errors carry a real `req_` id); a forced rate-limit burst is
answered before, by the traffic rules. The request body is read only when some rule matches
on bodies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from time import perf_counter
from typing import Any
from urllib.parse import parse_qsl

import orjson

from mockserver.core import observed
from mockserver.core.clock import http_date
from mockserver.core.errors import ApiError
from mockserver.engine.envelope import envelope_bytes, render_error
from mockserver.engine.explain import Refusal, header_value
from mockserver.engine.journal import RequestState
from mockserver.engine.request import MAX_BODY, HeaderLines, Response, TransportFault
from mockserver.scenarios.engine import MISSING, RequestView, ScenarioEngine
from mockserver.scenarios.model import (
    ERROR_TYPES,
    TRANSPORT_FAULTS,
    Deprecation,
    Match,
    Rule,
)

_JSON = b"application/json"


def who(rule: Rule) -> str:
    """How messages name `rule`: a scenario rule, or a chaos rule (one built for a hit of a
    scenario's chaos block, its place in the file under `chaos`)."""
    kind = "chaos" if rule.at[:1] == ("chaos",) else "scenario"
    return f"{kind} rule '{rule.name}'"


def _reason(rule: Rule) -> dict[str, Any]:
    reason: dict[str, Any] = {"check": "scenario", "rule": rule.name, "scenario": rule.scenario}
    if rule.at[:1] == ("chaos",):
        reason["chaos"] = True
    return reason


def refusal(rule: Rule, status: int, path: str) -> Refusal:
    """What the journal keeps of an error answer injected by `rule` (see engine.explain)."""
    error = rule.respond.error
    message = error.message if error else f"Injected by {who(rule)}."
    return (_reason(rule), message, None, status, path)


_FAULT_WORDS = {
    "reset": "the connection was reset before any answer",
    "stall": "no answer came for {stall_ms} ms, then the connection was reset",
    "drop_after_commit": "the request ran and its effects stay, but the connection closed "
    "with no answer",
    "truncate": "the status and headers were sent and the body cut off by closing the connection",
    "slow_body": "the body was sent at {bytes_per_second} bytes per second",
}


def fault_refusal(rule: Rule, fault: TransportFault, status: int, path: str) -> Refusal:
    """What the journal's `explain` says of a request whose connection `rule` broke."""
    what = _FAULT_WORDS[fault.kind].format(
        stall_ms=fault.stall_ms, bytes_per_second=fault.bytes_per_second
    )
    message = f"Transport fault of {who(rule)}: {what}."
    reason = _reason(rule)
    reason["fault"] = fault.kind
    return (reason, message, None, status, path)


def bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token and " " not in token else None


def matchable_body(raw: bytes | None) -> Any:
    """The body as the rules match it: its JSON value, or MISSING (absent, empty, too big or
    not JSON)."""
    if raw is None or not raw.strip():
        return MISSING
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return MISSING


def deprecation_headers(item: Deprecation | None) -> HeaderLines:
    if item is None:
        return []
    deprecation = f"@{item.deprecation}".encode()
    headers = [(b"deprecation", deprecation), (b"sunset", http_date(item.sunset))]
    if item.link:
        headers.append((b"link", f'<{item.link}>; rel="deprecation"'.encode()))
    return headers


def injected_answer(
    rule: Rule, request_id: str, extra: HeaderLines
) -> tuple[int, HeaderLines, bytes]:
    """The status, headers and body of the answer `rule` injects (`extra`: headers to add,
    deprecation ones say), as sent: a Content-Length unless it is an empty 204 or 304."""
    respond = rule.respond
    status = respond.status or 200
    headers: HeaderLines = []
    body = b""
    if respond.error is not None or (not respond.has_body and status >= 400):
        error = respond.error
        kind = error.type if error else ERROR_TYPES.get(status, "api_error")
        message = error.message if error else f"Injected by {who(rule)}."
        param = error.param if error else None
        body = envelope_bytes(kind, message, param, request_id)
        headers.append((b"content-type", _JSON))
    elif respond.has_body:
        body = orjson.dumps(respond.body)
        headers.append((b"content-type", _JSON))
    given = {name.lower() for name in respond.headers}
    if status == 429 and "retry-after" not in given:
        headers.append((b"retry-after", b"1"))
    if given & {"content-type"}:
        headers = [h for h in headers if h[0] != b"content-type"]
    headers += [(name.lower().encode(), value.encode()) for name, value in respond.headers.items()]
    headers = [*headers, *extra]
    if body or status not in (204, 304):
        headers.append((b"content-length", str(len(body)).encode()))
    return status, headers, body


_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


async def apply_rules(
    engine: ScenarioEngine, state: RequestState, inner: Callable[[], Awaitable[Response]]
) -> Response:
    """The answer to an API request while a scenario has armed something: the first rule that
    fires answers (after its `delay_ms`; a delay without a status only slows the real answer,
    `inner`), and a deprecated route gets its `Deprecation` and `Sunset` headers on every
    answer, injected ones and errors included. The rule that answered goes to the journal."""
    request, path = state.request, state.path
    method = request.method
    extra = deprecation_headers(engine.deprecation_for(method, path))
    if engine.may_take(method, path):  # most requests: no rule could, nothing more is read
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in request.headers}
        key = bearer(headers.get("authorization"))
        body: Any = MISSING
        if engine.needs_body and method in _BODY_METHODS:
            raw = await state.body(MAX_BODY)
            body = matchable_body(None if len(raw) > MAX_BODY else raw)
        query = dict(parse_qsl(request.query.decode("latin-1")))
        view = RequestView(method, path, query, headers, key, body)
        rule = engine.decide(view)
        if rule is not None:
            state.rule = rule.name
            observed.scenario_hit(rule.scenario, rule.name)
            state.scenario = {"name": rule.scenario, "version": rule.version, "rule": rule.name}
        if engine.chaos_rules or engine.latencies:
            rule = await chaos(engine, state, view, rule)
        if rule is not None:
            if rule.respond.delay_ms:
                await hold(rule.respond.delay_ms / 1000)
            if rule.respond.fault is not None:
                return await faulted(rule, state, inner, extra)
            if rule.respond.status is not None:
                status = rule.respond.status
                if status >= 400:
                    state.explain = refusal(rule, status, path)
                    if headers.get("x-mock-explain", "").strip() == "1":
                        extra = [*extra, (b"x-mock-explain", header_value(state.explain))]
                status, injected, body_bytes = injected_answer(rule, state.request_id, extra)
                return Response(status, injected, body_bytes)
    if not extra:
        return await inner()
    try:
        response = await inner()
    except ApiError as error:  # its envelope carries these headers too
        error.headers.update((k.decode(), v.decode()) for k, v in extra)
        raise
    response.headers = [*response.headers, *extra]
    return response


async def chaos(
    engine: ScenarioEngine, state: RequestState, view: RequestView, rule: Rule | None
) -> Rule | None:
    """A scenario's chaos on a request: its latency (waited here), and, when no rule answered
    it (`rule`), the chaos rule that hits it, as a rule to answer with. Both are drawn for the
    request's account (its credential's), and marked on the journal entry (`state.chaos`)."""
    principal = state.principal
    account = principal.account_id if principal is not None else None
    mark: dict[str, Any] = {}
    if rule is None and engine.chaos_rules:
        hit = engine.chaos_decide(view, account)
        if hit is not None:
            observed.chaos_hit(hit.scenario, hit.rule)
            mark = {"rule": hit.rule, "draw": hit.draw}
            version = engine.version_of(hit.scenario)
            state.scenario = {"name": hit.scenario, "version": version, "rule": hit.rule}
            rule = Rule(hit.rule, Match(), hit.respond, ("chaos", "rules"), scenario=hit.scenario)
    latency = engine.chaos_latency(view, account) if engine.latencies else None
    if latency is not None:
        milliseconds, drawn = latency
        mark = {"rule": None, "draw": None, **mark}
        mark["latency_ms"] = round(milliseconds, 3)
        mark["latency_draw"] = drawn
        await hold(milliseconds / 1000)
    if mark:
        state.chaos = mark
    return rule


async def faulted(
    rule: Rule, state: RequestState, inner: Callable[[], Awaitable[Response]], extra: HeaderLines
) -> Response:
    """The answer of a request whose connection `rule` breaks (its `respond.fault`): none for
    reset and stall (the request does not run; its body is still read, for the journal), the
    request's own answer for drop_after_commit, and for truncate and slow_body the rule's
    injected answer when it gives a status, else the request's own; an error the request
    raises is its answer too. The fault rides on the response for the adapter to perform."""
    respond = rule.respond
    kind = respond.fault or ""
    fault = TransportFault(kind, TRANSPORT_FAULTS[kind], respond.bytes_per_second, respond.stall_ms)
    if not fault.committed:
        if state.request.method in _BODY_METHODS:
            await state.body(MAX_BODY)
        response = Response(0, [])
    elif respond.status is not None:
        status, injected, body = injected_answer(rule, state.request_id, extra)
        response = Response(status, injected, body)
    else:
        try:
            response = await inner()
        except ApiError as error:
            response = render_error(error, state.request_id)
        response.headers = [*response.headers, *extra]
    state.explain = fault_refusal(rule, fault, response.status, state.path)
    response.fault = fault
    return response


async def hold(seconds: float) -> None:
    """Wait at least `seconds` of wall time, as the journal's `duration_ms` measures it.

    A loop may wake a timer early (uvloop rounds them to the millisecond), so a rule's
    `delay_ms` is a floor only if the shortfall is slept again.
    """
    until = perf_counter() + seconds
    while (left := until - perf_counter()) > 0:
        await asyncio.sleep(left)
