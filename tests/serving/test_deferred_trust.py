"""The context `mock_server.client()` verifies with: httpx's default verification, its CA
certificates read by the first TLS connection (sync and async), from where httpx reads them."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.deferred_trust import DeferredTrust
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.keys import auth


@pytest.fixture(scope="module")
def tls_server() -> Iterator[LiveServer]:
    live = LiveServer(create_app(Settings(clock_mode="frozen")), tls=True).start()
    yield live
    live.stop()


def settings(context: ssl.SSLContext) -> tuple[object, ...]:
    return (
        context.protocol,
        context.verify_mode,
        context.check_hostname,
        context.options,
        context.verify_flags,
        context.minimum_version,
        context.maximum_version,
        context.keylog_filename,
    )


def test_it_is_set_as_httpx_sets_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    deferred = DeferredTrust.make()
    assert settings(deferred) == settings(httpx.create_ssl_context())
    assert deferred.cert_store_stats()["x509_ca"] == 0  # nothing read yet
    deferred.trust()
    deferred.trust()  # once
    assert deferred.get_ca_certs() == httpx.create_ssl_context().get_ca_certs()


def test_a_connection_to_an_unknown_ca_is_refused(tls_server: LiveServer) -> None:
    with httpx.Client(verify=DeferredTrust.make()) as client:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            client.get(f"{tls_server.base_url}/v1/whoami", headers=auth())


def test_the_cas_of_ssl_cert_file_are_trusted(
    tls_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_server.ca_bundle))
    context = DeferredTrust.make()  # read at the first handshake, not here
    with httpx.Client(verify=context) as client:
        assert client.get(f"{tls_server.base_url}/v1/whoami", headers=auth()).status_code == 200
    assert context.cert_store_stats()["x509_ca"] == 1


def test_an_async_client_loads_them_too(
    tls_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_server.ca_bundle))
    context = DeferredTrust.make()

    async def whoami() -> int:
        async with httpx.AsyncClient(verify=context) as client:
            response = await client.get(f"{tls_server.base_url}/v1/whoami", headers=auth())
            return response.status_code

    assert asyncio.run(whoami()) == 200
    assert context.cert_store_stats()["x509_ca"] == 1
