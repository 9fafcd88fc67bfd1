"""Request limits: query strings, repeated parameters, bodies on every POST, field limits."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from tests.support.api import assert_envelope
from tests.support.asgi import request
from tests.support.keys import FULL
from tests.support.workflows import new_document

POSTS = [
    "/v1/documents",
    "/v1/vaults",
    "/v1/workflows",
    "/v1/workflows/wf_nope/advance",
    "/v1/audit_logs/export",
]
JSON = {"content-type": "application/json"}


def test_a_query_of_8_kib_is_read_and_one_byte_more_is_400(both: httpx.Client) -> None:
    base = "/v1/documents?limit=5&note="
    fits = base + "x" * (8 * 1024 - len(base) + len("/v1/documents?"))
    assert both.get(fits).status_code == 200
    error = assert_envelope(both.get(fits + "x"), 400, "bad_request")
    assert "8192 bytes" in error["message"]


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ("limit=%zz", "percent-encoding"),
        ("limit=5&x=%", "percent-encoding"),
        ("x=%4", "percent-encoding"),
        ("x=%ff", "not UTF-8"),
        ("x=%C3%28", "not UTF-8"),
        ("x=%ED%A0%80", "not UTF-8"),  # an encoded surrogate
    ],
)
def test_malformed_queries_are_400(both: httpx.Client, query: str, fragment: str) -> None:
    error = assert_envelope(both.get(f"/v1/documents?{query}"), 400, "bad_request")
    assert fragment in error["message"]


def test_raw_non_ascii_in_the_query_is_400(fresh_app: Starlette) -> None:
    answer = asyncio.run(
        request(
            fresh_app,
            "GET",
            "/v1/documents",
            query="vault_id=vault_é".encode(),
            headers=[(b"authorization", f"Bearer {FULL}".encode())],
        )
    )
    assert answer.status == 400
    assert "ASCII" in answer.json()["error"]["message"]
    assert answer.header("x-ratelimit-remaining") == "199"


def test_well_formed_escapes_are_decoded(api: httpx.Client) -> None:
    assert api.get("/v1/documents?status=%64raft&limit=%31").json()["data"][0]["status"] == "draft"
    unknown = api.get("/v1/documents?vault_id=vault_%C3%A9")
    assert assert_envelope(unknown, 404, "not_found")["param"] == "vault_id"


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/v1/documents?limit=1&limit=2", "limit"),
        ("/v1/documents?status=draft&limit=3&status=signed", "status"),
        ("/v1/audit_logs?type=a&type=b", "type"),
        ("/v1/vaults?ignored=1&ignored=2", "ignored"),
    ],
)
def test_repeated_parameters_are_422(both: httpx.Client, path: str, param: str) -> None:
    error = assert_envelope(both.get(path), 422, "validation_error")
    assert error["param"] == param
    assert "more than once" in error["message"]


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    ("content", "headers", "fragment"),
    [
        (b"", JSON, "required"),
        (b"{bad", JSON, "Invalid JSON"),
        (b"[]", JSON, "JSON object"),
        (b"42", JSON, "JSON object"),
        (b'{"a": "\xc3\x28"}', JSON, "Invalid JSON"),
        (b'{"a": "\\ud800"}', JSON, "Invalid JSON"),
        (b'{"a": 1e999}', JSON, "Invalid JSON"),
        (b'{"a":' * 2000 + b"1" + b"}" * 2000, JSON, "Invalid JSON"),
        (b"{}", {"content-type": "text/plain"}, "Content-Type"),
        (b"{}", {"content-type": "multipart/form-data; boundary=x"}, "Content-Type"),
    ],
)
def test_every_post_refuses_malformed_bodies(
    api: httpx.Client, path: str, content: bytes, headers: dict[str, str], fragment: str
) -> None:
    error = assert_envelope(api.post(path, content=content, headers=headers), 400, "bad_request")
    assert fragment in error["message"]


@pytest.mark.parametrize("path", POSTS)
def test_every_post_refuses_a_body_over_1_mib(both: httpx.Client, path: str) -> None:
    body = b'{"pad": "' + b"x" * (1024 * 1024) + b'"}'
    assert_envelope(both.post(path, content=body, headers=JSON), 413, "bad_request")


def test_a_json_body_on_get_and_delete_is_ignored(api: httpx.Client) -> None:
    listed = api.request("GET", "/v1/documents?limit=1", content=b'{"limit": 50}', headers=JSON)
    assert len(listed.json()["data"]) == 1
    garbage = api.request("GET", "/v1/vaults", content=b"\xff{not json", headers=JSON)
    assert garbage.status_code == 200
    deleted = api.request("DELETE", "/v1/documents/doc_mock_draft", content=b"[1]", headers=JSON)
    assert deleted.json() == {"id": "doc_mock_draft", "object": "document", "deleted": True}


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/documents", {"title": "x" * 500, "vault_id": "vault_mock_us"}),
        (
            "/v1/documents",
            {
                "title": "t",
                "vault_id": "vault_mock_us",
                "metadata": {f"{i:040d}": "v" * 500 for i in range(50)},
            },
        ),
        ("/v1/vaults", {"name": "n" * 200, "region": "us"}),
        (
            "/v1/vaults",
            {"name": "n", "region": "us", "members": [f"u{i}@b.co" for i in range(100)]},
        ),
    ],
)
def test_bodies_at_the_field_limits_are_accepted(
    api: httpx.Client, path: str, body: dict[str, Any]
) -> None:
    assert api.post(path, json=body).status_code == 201


def test_twenty_steps_are_accepted(api: httpx.Client) -> None:
    steps = [{"assignee": f"u{i}@b.co"} for i in range(20)]
    response = api.post("/v1/workflows", json={"document_id": new_document(api), "steps": steps})
    assert response.status_code == 201
