"""`mock_server.client()` as consumers call it, often once per test: every client verifies TLS
with one context made for the session, as httpx's default would (httpx makes a new one, about
15 ms, for each client), and reads no CA bundle while it speaks plain HTTP (httpx reads one
for each context it makes); `trust_env` still reaches httpx."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import ssl

import httpx
import pytest


@pytest.fixture
def bundles_read(monkeypatch):
    read = []
    load = ssl.SSLContext.load_verify_locations

    def counted(self, *args, **kwargs):
        read.append(self)
        return load(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    return read


def test_clients_read_no_ca_bundle_over_plain_http(mock_server, bundles_read):
    for _ in range(3):
        with mock_server.client() as client:
            assert client.get("/v1/whoami").status_code == 200
    assert bundles_read == []


def test_nor_in_the_next_test(mock_server, bundles_read):
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 200
    assert bundles_read == []


def test_httpx_reads_one_for_each_client(bundles_read):
    with httpx.Client(), httpx.Client():
        pass
    assert len(bundles_read) == 2


def test_trust_env_still_reaches_httpx(mock_server):
    with mock_server.client(trust_env=False) as client:
        assert client.get("/v1/whoami").status_code == 200
"""


def test_clients_of_the_live_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=4)
