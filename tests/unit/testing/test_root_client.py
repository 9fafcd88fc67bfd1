"""`RootClient`, the client of `mock_server.client()`: based at the server's root, it sends a
path from the root as it is, and a path from `/v1` (as the client based at `/v1` took) under
`/v1`, with a DeprecationWarning that names the caller's line."""

from __future__ import annotations

import warnings

import httpx
import pytest

from mockserver.testing.root_client import RootClient

ROOT = "http://127.0.0.1:8080"


def sent_path(client: RootClient, url: str) -> str:
    return client.get(url).request.url.path


@pytest.fixture
def client() -> RootClient:
    return RootClient(
        base_url=ROOT, transport=httpx.MockTransport(lambda request: httpx.Response(200))
    )


@pytest.mark.parametrize(
    "path",
    ["/v1/whoami", "/us/v1/documents", "/eu/v1/documents", "/_mock/clock", "/v1", "/"],
)
def test_a_path_from_the_root_is_sent_as_it_is(client: RootClient, path: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sent_path(client, path) == path


def test_an_absolute_url_is_sent_as_it_is(client: RootClient) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sent_path(client, f"{ROOT}/documents") == "/documents"


@pytest.mark.parametrize(
    ("path", "sent"),
    [
        ("/documents", "/v1/documents"),
        ("documents/doc_1", "/v1/documents/doc_1"),
        ("/whoami?x=1", "/v1/whoami"),
        ("/v1beta", "/v1/v1beta"),
    ],
)
def test_a_path_from_v1_goes_under_it_with_a_warning(
    client: RootClient, path: str, sent: str
) -> None:
    with pytest.warns(DeprecationWarning, match="based at the server's root") as warned:
        assert sent_path(client, path) == sent
    assert warned[0].filename == __file__


@pytest.mark.parametrize("method", ["post", "request", "stream"])
def test_every_method_warns_at_the_caller(client: RootClient, method: str) -> None:
    with pytest.warns(DeprecationWarning, match="based at the server's root") as warned:
        call_by(client, method)
    assert warned[0].filename == __file__


def call_by(client: RootClient, method: str) -> None:
    if method == "post":
        client.post("/documents", json={})
    elif method == "request":
        client.request("DELETE", "/documents/doc_1")
    else:
        with client.stream("GET", "/documents") as streamed:
            streamed.read()
