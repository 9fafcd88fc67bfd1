"""`mock_server.client()` as consumers call it, often once per test: every client verifies TLS
with one context made for the session, as httpx's default would (httpx makes a new one, about
15 ms, for each client); `trust_env` still reaches httpx."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import httpx
import pytest


@pytest.fixture
def contexts_made(monkeypatch):
    made = []
    make = httpx.create_ssl_context

    def counted(*args, **kwargs):
        made.append(1)
        return make(*args, **kwargs)

    monkeypatch.setattr(httpx, "create_ssl_context", counted)
    return made


def test_clients_share_one_context(mock_server, contexts_made):
    for _ in range(3):
        with mock_server.client() as client:
            assert client.get("/whoami").status_code == 200
    assert len(contexts_made) == 1


def test_and_so_does_the_next_test(mock_server, contexts_made):
    with mock_server.client() as client:
        assert client.get("/whoami").status_code == 200
    assert contexts_made == []


def test_trust_env_still_reaches_httpx(mock_server):
    with mock_server.client(trust_env=False) as client:
        assert client.get("/whoami").status_code == 200
"""


def test_clients_of_the_live_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=3)
