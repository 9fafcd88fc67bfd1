"""The error envelope on every failure path, and X-Request-Id on every response."""

from __future__ import annotations

import gzip
import logging

import httpx
import pytest

from mockserver.domain import workflows
from tests.support.api import assert_envelope


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/nope"),
        ("GET", "/nope"),
        ("PATCH", "/v1/documents/doc_mock_draft"),
        ("PUT", "/v1/vaults"),
        ("DELETE", "/v1/vaults/vault_mock_us"),
        ("GET", "/v2/documents"),
        ("GET", "/us/v1"),
        ("GET", "/eu/v1/nope"),
    ],
)
def test_unknown_routes_and_methods_are_404(both: httpx.Client, method: str, path: str) -> None:
    assert_envelope(both.request(method, path), 404, "not_found")


@pytest.mark.parametrize(
    ("content", "headers", "fragment"),
    [
        (b"", {"content-type": "application/json"}, "required"),
        (b"   ", {"content-type": "application/json"}, "required"),
        (b"{bad json", {"content-type": "application/json"}, "Invalid JSON"),
        (b'{"title": "t",}', {"content-type": "application/json"}, "Invalid JSON"),
        (b"[1, 2]", {"content-type": "application/json"}, "JSON object"),
        (b'"text"', {"content-type": "application/json"}, "JSON object"),
        (b"null", {"content-type": "application/json"}, "JSON object"),
        (b'{"title": "\xff"}', {"content-type": "application/json"}, "Invalid JSON"),
        (b"title=t", {"content-type": "application/x-www-form-urlencoded"}, "Content-Type"),
        (b"[" * 5000 + b"]" * 5000, {"content-type": "application/json"}, "Invalid JSON"),
    ],
)
def test_malformed_bodies_are_400(
    both: httpx.Client, content: bytes, headers: dict[str, str], fragment: str
) -> None:
    error = assert_envelope(
        both.post("/v1/documents", content=content, headers=headers), 400, "bad_request"
    )
    assert fragment in error["message"]


@pytest.mark.parametrize("encoding", ["gzip", "br", "GZIP", "deflate, gzip"])
def test_a_compressed_body_is_400_naming_its_encoding(both: httpx.Client, encoding: str) -> None:
    body = gzip.compress(b'{"title": "t", "vault_id": "vault_mock_us"}')
    before = both.get("/v1/documents?limit=1").json()["data"]
    headers = {"content-type": "application/json", "content-encoding": encoding}
    error = assert_envelope(
        both.post("/v1/documents", content=body, headers=headers), 400, "bad_request"
    )
    assert error["message"] == (
        f"Unsupported Content-Encoding '{encoding}'. Send the body uncompressed."
    )
    assert both.get("/v1/documents?limit=1").json()["data"] == before  # nothing created


def test_an_identity_encoding_is_read_as_it_is(api: httpx.Client) -> None:
    headers = {"content-type": "application/json", "content-encoding": "identity"}
    body = b'{"title": "t", "vault_id": "vault_mock_us"}'
    assert api.post("/v1/documents", content=body, headers=headers).status_code == 201


def test_json_without_content_type_is_accepted(api: httpx.Client) -> None:
    response = api.post(
        "/v1/documents", content=b'{"title": "t", "vault_id": "vault_mock_us"}', headers={}
    )
    assert response.status_code == 201


def test_body_over_1_mib_is_413(both: httpx.Client) -> None:
    body = b'{"title": "' + b"x" * (1024 * 1024) + b'", "vault_id": "vault_mock_us"}'
    response = both.post(
        "/v1/documents", content=body, headers={"content-type": "application/json"}
    )
    assert_envelope(response, 413, "bad_request")


def test_unexpected_exception_is_a_logged_500_envelope(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    # The workflow operations call `workflows.get` through its module: the patch holds.
    monkeypatch.setattr(workflows, "get", explode)
    with caplog.at_level(logging.ERROR, logger="mockserver"):
        error = assert_envelope(api.get("/v1/workflows/wf_mock_in_review"), 500, "api_error")
    assert "boom" not in error["message"]
    assert any("RuntimeError: boom" in (r.exc_text or "") for r in caplog.records)
    assert error["request_id"] in caplog.text


def test_every_response_has_a_unique_request_id(both: httpx.Client) -> None:
    responses = [
        both.get("/v1/whoami"),
        both.get("/v1/documents/doc_nope"),
        both.get("/v1/nope"),
        both.post("/v1/documents", json={}),
        both.get("/v1/documents"),
    ]
    ids = [r.headers["x-request-id"] for r in responses]
    assert all(i.startswith("req_") for i in ids)
    assert len(set(ids)) == len(ids)
