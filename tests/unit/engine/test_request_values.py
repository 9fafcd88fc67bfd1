"""`Request` and `Response` are values of the public API: they copy, deep-copy and pickle into
equal values."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from mockserver import Request, Response

COPIES: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
}


@pytest.mark.parametrize("how", COPIES)
def test_a_request_copies_whole(how: str) -> None:
    request = Request(
        "post",
        "/v1/documents",
        headers=[("Host", "eu.mock"), (b"Idempotency-Key", b"k")],
        query="limit=2",
        body=b"{}",
        client=("10.0.0.1", 4242),
        scheme="https",
        server=("mock", 443),
        root_path="/api",
    )
    copied = COPIES[how](request)
    assert type(copied) is Request
    fields = ("method", "path", "headers", "query", "body", "client", "scheme", "server")
    for name in (*fields, "root_path"):
        assert getattr(copied, name) == getattr(request, name), name
    assert copied.url_of("/v1/x") == request.url_of("/v1/x") == "https://eu.mock/v1/x"


@pytest.mark.parametrize("how", COPIES)
def test_a_response_copies_whole(how: str) -> None:
    response = Response(201, [(b"content-type", b"application/json")], b'{"id": 1}')
    copied = COPIES[how](response)
    assert type(copied) is Response
    assert (copied.status, copied.headers, copied.body) == (
        201,
        [(b"content-type", b"application/json")],
        b'{"id": 1}',
    )
