"""`Accept-Encoding: gzip` compresses large responses; small ones and other clients get identity."""

from __future__ import annotations

import gzip

import httpx
import orjson

from tests.support.api import assert_envelope

GZIP = {"Accept-Encoding": "gzip"}
IDENTITY = {"Accept-Encoding": "identity"}
LIST = "/v1/documents?limit=100"


def raw(client: httpx.Client, url: str, headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
    """The response and its body exactly as sent, before any decoding."""
    with client.stream("GET", url, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def test_a_large_list_round_trips_through_gzip(both: httpx.Client) -> None:
    response, body = raw(both, LIST, GZIP)
    plain, plain_body = raw(both, LIST, IDENTITY)
    assert "content-encoding" not in plain.headers
    assert response.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in response.headers["vary"].lower()
    assert int(response.headers["content-length"]) == len(body) < len(plain_body)
    assert response.headers["x-request-id"].startswith("req_")
    assert response.headers["content-type"] == "application/json"
    assert gzip.decompress(body) == plain_body
    assert orjson.loads(plain_body)["data"]


def test_httpx_decodes_it_transparently(both: httpx.Client) -> None:
    compressed = both.get(LIST, headers=GZIP)
    assert compressed.headers["content-encoding"] == "gzip"
    assert compressed.json() == both.get(LIST, headers=IDENTITY).json()


def test_without_gzip_in_accept_encoding_nothing_is_compressed(both: httpx.Client) -> None:
    for headers in (IDENTITY, {"Accept-Encoding": "br"}):
        response, body = raw(both, LIST, headers)
        assert "content-encoding" not in response.headers
        assert orjson.loads(body)["object"] == "list"


def test_small_responses_are_not_compressed(both: httpx.Client) -> None:
    response, body = raw(both, "/v1/whoami", GZIP)
    assert "content-encoding" not in response.headers
    assert len(body) < 1024
    assert orjson.loads(body)["account_id"] == "acct_mock_us"


def test_errors_keep_their_envelope_and_request_id(both: httpx.Client) -> None:
    response = both.get("/v1/documents/doc_nope", headers=GZIP)
    assert "content-encoding" not in response.headers
    assert_envelope(response, 404, "not_found")


def test_compressed_bytes_are_deterministic(both: httpx.Client) -> None:
    # zlib writes no timestamp into the gzip header, so replays compare byte for byte.
    assert raw(both, LIST, GZIP)[1] == raw(both, LIST, GZIP)[1]
