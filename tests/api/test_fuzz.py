"""Random bodies, query strings and headers at every endpoint: never a 5xx, and every failure
is the error envelope with a `req_` id and the rate-limit headers.

Requests go through raw ASGI (in-process) so that query strings and header values can hold
bytes an HTTP client would have escaped. The server has `rate_limit=False`, so the windows
fill up but never refuse: every example reaches the endpoint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.web.app import create_app
from tests.support.asgi import Answer, request
from tests.support.keys import EU, FULL, LIVE, READONLY, REVOKED

ENDPOINTS = [
    ("GET", "/v1/whoami"),
    ("GET", "/v1/oauth/authorize"),
    ("POST", "/v1/oauth/token"),
    ("GET", "/v1/vaults"),
    ("POST", "/v1/vaults"),
    ("GET", "/v1/vaults/{id}"),
    ("GET", "/v1/documents"),
    ("POST", "/v1/documents"),
    ("GET", "/v1/documents/{id}"),
    ("DELETE", "/v1/documents/{id}"),
    ("POST", "/v1/workflows"),
    ("GET", "/v1/workflows/{id}"),
    ("POST", "/v1/workflows/{id}/advance"),
    ("GET", "/v1/audit_logs"),
    ("POST", "/v1/audit_logs/export"),
    ("GET", "/v1/audit_logs/export/{id}"),
    ("GET", "/v1/audit_logs/export/{id}/download"),
    ("PATCH", "/v1/documents/{id}"),
    ("GET", "/v1/{id}"),
]
ERROR_TYPES = {
    "bad_request",
    "authentication_error",
    "permission_error",
    "not_found",
    "conflict",
    "validation_error",
    "rate_limit_error",
}
OTHER_KEYS = [READONLY, EU, LIVE, REVOKED, "oat_nope", "", "sk_test_nope"]
IDS = [
    "doc_mock_draft",
    "doc_mock_in_review",
    "doc_mock_signed",
    "doc_mock_legal_hold",
    "vault_mock_us",
    "vault_mock_eu",
    "wf_0Ngfx09N0H2gzXkgMjy3DpsO",
]
FIELDS = [
    "title",
    "vault_id",
    "metadata",
    "name",
    "region",
    "members",
    "document_id",
    "steps",
    "decision",
    "comment",
    "period",
    "format",
    "limit",
    "cursor",
    "status",
    "resource_id",
    "since",
    "until",
    "actor",
    "type",
    "grant_type",
    "code",
    "client_id",
    "redirect_uri",
    "expires",
    "signature",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from([*IDS, "us", "eu", "approve", "reject", "a@b.co", "2026-01-01/2026-01-31"])
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), json_values, max_size=6)
VALID: dict[str, dict[str, Any]] = {
    "/v1/documents": {"title": "t", "vault_id": "vault_mock_us", "metadata": {"k": "v", "n": 1}},
    "/v1/vaults": {"name": "n", "region": "us", "members": ["a@b.co"]},
    "/v1/workflows": {
        "document_id": "doc_mock_draft",
        "steps": [{"assignee": "a@b.co", "condition": "metadata.amount > 1"}],
    },
    "/v1/workflows/{id}/advance": {"decision": "approve", "comment": "c"},
    "/v1/audit_logs/export": {"period": "2026-01-01/2026-01-31", "format": "csv"},
}


@st.composite
def near_valid(draw: st.DrawFn, template: str) -> bytes:
    """A valid body of the endpoint with some fields replaced, dropped or added."""
    body: dict[str, Any] = dict(VALID.get(template, {}))
    for name in list(body):
        choice = draw(st.integers(0, 5))
        if choice == 0:
            del body[name]
        elif choice == 1:
            body[name] = draw(json_values)
    body.update(draw(st.dictionaries(st.text(max_size=6), json_values, max_size=2)))
    return orjson.dumps(body)


def body_for(draw: st.DrawFn, template: str) -> bytes:
    """Mostly near-valid bodies (they reach the deepest checks), then anything at all."""
    shape = draw(st.sampled_from(["near"] * 3 + ["object", "json", "bytes", "empty"]))
    if shape == "near":
        return draw(near_valid(template))
    if shape == "object":
        return orjson.dumps(draw(objects))
    if shape == "json":
        return orjson.dumps(draw(json_values))
    return draw(st.binary(max_size=64)) if shape == "bytes" else b""


query_values = st.text(max_size=12) | st.sampled_from(
    [
        *IDS,
        "1",
        "100",
        "0",
        "draft",
        "cur_x",
        "code",
        "mock_client",
        "http://127.0.0.1:8765/callback",
    ]
)
form_queries = st.lists(
    st.tuples(st.sampled_from([*FIELDS, "response_type", "state"]), query_values), max_size=4
)
VALID_QUERY = {
    "/v1/oauth/authorize": [
        ("response_type", "code"),
        ("client_id", "mock_client"),
        ("redirect_uri", "http://127.0.0.1:8765/callback"),
        ("state", "s"),
        ("scope", "documents:read"),
    ],
    "/v1/documents": [("limit", "5"), ("status", "draft"), ("vault_id", "vault_mock_us")],
    "/v1/audit_logs": [("limit", "5"), ("type", "document.created"), ("since", "2025-01-01")],
}


@st.composite
def queries(draw: st.DrawFn, template: str) -> bytes:
    """Mostly well-formed queries, near-valid where the endpoint reads one; else raw bytes."""
    shape = draw(st.sampled_from(["near", "near", "form", "none", "bytes"]))
    if shape == "bytes":
        return draw(st.binary(max_size=48).filter(lambda raw: b"#" not in raw))
    if shape == "none":
        return b""
    pairs = draw(form_queries) if shape == "form" else []
    if shape == "near":
        for name, value in VALID_QUERY.get(template, []):
            choice = draw(st.integers(0, 4))
            if choice:
                pairs.append((name, value if choice > 1 else draw(query_values)))
    return urlencode(pairs).encode()


header_bytes = st.binary(max_size=40).filter(lambda raw: not set(raw) & {0, 10, 13})
content_types = (
    st.sampled_from(
        [
            b"application/json",
            b"application/json; charset=utf-8",
            b"application/x-www-form-urlencoded",
            b"text/plain",
            b"application/vnd.api+json",
        ]
    )
    | header_bytes
)
ids = st.sampled_from(IDS) | st.text(max_size=30)  # decoded: may hold "/", "?", "%", ...


@st.composite
def requests(draw: st.DrawFn, method: str, template: str) -> dict[str, Any]:
    path = draw(st.sampled_from(["", "/us", "/eu"])) + template.replace("{id}", draw(ids) or "x")
    headers: list[tuple[bytes, bytes]] = []
    # Mostly the full key, so that most requests get past authentication.
    credential = draw(st.sampled_from(["full"] * 7 + ["other", "garbage", "none"]))
    if credential == "full":
        headers.append((b"authorization", f"Bearer {FULL}".encode()))
    elif credential == "other":
        headers.append((b"authorization", f"Bearer {draw(st.sampled_from(OTHER_KEYS))}".encode()))
    elif credential == "garbage":
        headers.append((b"authorization", draw(header_bytes)))
    if draw(st.booleans()):
        headers.append((b"content-type", draw(content_types)))
    if method == "POST" and draw(st.booleans()):
        key = draw(st.sampled_from([b"fuzz-1", b"fuzz-2"]) | header_bytes)
        headers.append((b"idempotency-key", key))
    return {
        "method": method,
        "path": path,
        "query": draw(queries(template)),
        "headers": headers,
        "chunks": [body_for(draw, template)],
    }


@pytest.fixture(scope="module")
def fuzz_app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", rate_limit=False))


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """One event loop for every example, as a server has."""
    running = asyncio.new_event_loop()
    yield running
    running.close()


def check(answer: Answer, path: str) -> None:
    assert answer.status < 500, answer.body
    request_id = answer.header("x-request-id")
    assert request_id is not None
    assert request_id.startswith("req_")
    for name in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"):
        assert (answer.header(name) or "").isdigit(), (name, path)
    if answer.status < 400:
        return
    assert answer.header("content-type") == "application/json"
    body = answer.json()
    assert list(body) == ["error"]
    error = body["error"]
    assert error["type"] in ERROR_TYPES
    assert isinstance(error["message"], str)
    assert error["message"]
    assert error["request_id"] == request_id
    assert set(error) <= {"type", "message", "param", "code", "request_id"}
    assert all(isinstance(error.get(k, ""), str) for k in ("param", "code"))


@pytest.mark.slow
@pytest.mark.parametrize(("method", "template"), ENDPOINTS)
def test_no_input_makes_a_5xx_or_leaves_the_envelope(
    fuzz_app: Starlette, loop: asyncio.AbstractEventLoop, method: str, template: str
) -> None:
    @settings(
        max_examples=200,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(requests(method, template))
    def run(spec: dict[str, Any]) -> None:
        answer = loop.run_until_complete(asyncio.wait_for(request(fuzz_app, **spec), timeout=10))
        check(answer, spec["path"])

    run()
