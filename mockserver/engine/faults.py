"""What a loaded scenario does to an API request, with no HTTP: the rule's injected answer,
the deprecation headers of a route, the explanation an injected error gets, and the request's
facts as the rules match them. The web layer (`web/faults.py`) reads the request and sends what
these give.
"""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.core.clock import http_date
from mockserver.engine.calls import Headers
from mockserver.engine.envelope import envelope_bytes
from mockserver.engine.explain import Refusal
from mockserver.scenarios.engine import MISSING
from mockserver.scenarios.model import ERROR_TYPES, Deprecation, Rule

_JSON = b"application/json"


def refusal(rule: Rule, status: int, path: str) -> Refusal:
    """What the journal keeps of an error answer injected by `rule` (see engine.explain)."""
    error = rule.respond.error
    message = error.message if error else f"Injected by scenario rule '{rule.name}'."
    reason = {"check": "scenario", "rule": rule.name, "scenario": rule.scenario}
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


def deprecation_headers(item: Deprecation | None) -> Headers:
    if item is None:
        return []
    deprecation = f"@{item.deprecation}".encode()
    headers = [(b"deprecation", deprecation), (b"sunset", http_date(item.sunset))]
    if item.link:
        headers.append((b"link", f'<{item.link}>; rel="deprecation"'.encode()))
    return headers


def injected_answer(rule: Rule, request_id: str, extra: Headers) -> tuple[int, Headers, bytes]:
    """The status, headers and body of the answer `rule` injects (`extra`: headers to add,
    deprecation ones say), as sent: a Content-Length unless it is an empty 204 or 304."""
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
