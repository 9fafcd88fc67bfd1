"""`mock_server.client()` as consumers call it, often once per test: httpx's own verification
(the server's CA when it serves TLS; no CA at all for a plain-HTTP server, whose clients never
use TLS to reach it), and the keyword arguments, `trust_env` among them, reach httpx."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import httpx
import pytest

TLS_URLS = []


def test_clients_of_a_plain_http_server(mock_server):
    for _ in range(3):
        with mock_server.client() as client:
            assert client.get("/v1/whoami").status_code == 200


def test_trust_env_still_reaches_httpx(mock_server):
    with mock_server.client(trust_env=False) as client:
        assert not client.trust_env
        assert client.get("/v1/whoami").status_code == 200


def test_verify_given_replaces_the_server_s_trust(mock_server):
    with mock_server.client(verify=False) as client:
        assert client.get("/v1/whoami").status_code == 200


@pytest.mark.mock_server(tls=True)
def test_a_tls_server_s_clients_trust_its_ca(mock_server):
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 200
    TLS_URLS.append(mock_server.url)


def test_a_plain_http_server_s_clients_trust_no_certificate(mock_server):
    # the session's TLS server (the test above) still runs; its certificate is a test CA's
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 200
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            client.get(TLS_URLS[0] + "/v1/whoami")
"""


def test_clients_of_the_live_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=5)
