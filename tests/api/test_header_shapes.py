"""The request headers in every shape the ASGI spec allows, not only uvicorn's list of pairs of
bytes: the credential, the idempotency key, a regional host and gzip are read from each alike
(`http.headers.pairs`)."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Callable, Iterable
from typing import Any

import orjson
import pytest
from starlette.applications import Starlette

from tests.support.asgi import Answer, request
from tests.support.keys import FULL

Shape = Callable[[list[tuple[bytes, bytes]]], Iterable[Any]]

SHAPES: dict[str, Shape] = {
    "list of tuples": lambda pairs: pairs,
    "list of lists": lambda pairs: [[name, value] for name, value in pairs],
    "tuple of tuples": lambda pairs: tuple(pairs),
    "bytearray values": lambda pairs: [(name, bytearray(value)) for name, value in pairs],
}


def _call(app: Starlette, method: str, path: str, headers: Iterable[Any], body: bytes) -> Answer:
    call = request(app, method, path, scope_headers=headers, chunks=[body])
    return asyncio.run(asyncio.wait_for(call, timeout=10))


@pytest.mark.parametrize("shape", SHAPES)
def test_every_header_shape_reads_alike(fresh_app: Starlette, shape: str) -> None:
    make = SHAPES[shape]
    body = orjson.dumps({"title": "Shapes", "vault_id": "vault_mock_eu"})
    pairs = [
        (b"host", b"eu.mock"),  # a regional host: the EU vault is found
        (b"authorization", f"Bearer {FULL}".encode()),
        (b"idempotency-key", b"shape-key"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    first = _call(fresh_app, "POST", "/v1/documents", make(pairs), body)
    assert first.status == 201, first.body
    assert first.json()["region"] == "eu"
    again = _call(fresh_app, "POST", "/v1/documents", make(pairs), body)
    assert again.status == 201
    assert again.header("idempotent-replayed") == "true"
    assert again.json()["id"] == first.json()["id"]

    reads = [(b"authorization", f"Bearer {FULL}".encode()), (b"accept-encoding", b"gzip")]
    listed = _call(fresh_app, "GET", "/v1/documents", make(reads), b"")
    assert listed.status == 200
    assert listed.header("content-encoding") == "gzip"
    assert orjson.loads(gzip.decompress(listed.body))["object"] == "list"

    anonymous = _call(fresh_app, "GET", "/v1/documents", make([(b"host", b"mock")]), b"")
    assert anonymous.status == 401
