"""The recording proxy in-process: a client -> the proxy -> a mock app, no socket.

What is forwarded (headers, streamed bodies), what reaches the file (redacted at any depth),
and what a body too big to keep becomes. The real-socket tests are in tests/e2e.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.fidelity.proxy import RecordingProxy
from mockserver.web.app import create_app

AUTH = {"Authorization": "Bearer sk_test_mock_full"}
Flow = Callable[[httpx.AsyncClient, httpx.AsyncClient], Awaitable[None]]

SECRETS = """
name: secrets
rules:
  - name: nested
    match: {method: GET, path: /v1/vaults}
    respond:
      status: 200
      body:
        error: {code: invalid_grant}
        deep:
          - items:
              - signing_secret: whsec_deep_secret
                access_token: oat_deep_token
                client_secret: deep_client_secret
                code: oac_deep_code
                download_url: "https://x.example/d?expires=9&signature=deadbeefcafe"
                note: "see /v1/x?code=oac_in_text&state=s"
"""


def _record(flow: Flow) -> list[dict[str, Any]]:
    """Run `flow(client through the proxy, client of the upstream)`; the recorded lines."""
    app = create_app(Settings(clock_mode="frozen"))
    out = io.BytesIO()

    async def run() -> None:
        upstream = httpx.ASGITransport(app=app)
        proxy = RecordingProxy("http://upstream", out, transport=upstream)
        through = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=proxy), base_url="http://proxy"
        )
        direct = httpx.AsyncClient(transport=upstream, base_url="http://upstream")
        async with through, direct:
            await flow(through, direct)
        await proxy.aclose()

    asyncio.run(asyncio.wait_for(run(), timeout=30))
    return [json.loads(line) for line in out.getvalue().decode().splitlines()]


def test_secrets_are_redacted_at_any_depth_and_in_urls() -> None:
    async def flow(proxy: httpx.AsyncClient, upstream: httpx.AsyncClient) -> None:
        assert (await upstream.post("/_mock/scenarios", json={"yaml": SECRETS})).status_code == 201
        answer = await proxy.get("/v1/vaults", headers=AUTH)
        assert answer.json()["deep"][0]["items"][0]["code"] == "oac_deep_code"  # client: as is
        await proxy.get(
            "/v1/whoami",
            params={"access_token": "oat_in_query", "state": "kept"},
            headers={
                "Authorization": "Bearer oat_abcdefghijklmnop1234",
                "X-Mock-Admin-Token": "t0p",
            },
        )
        await proxy.post(
            "/v1/oauth/token",
            data={"grant_type": "authorization_code", "code": "oac_form", "client_secret": "cs_x"},
            headers={"Authorization": "Basic bW9ja19jbGllbnQ6bW9ja19zZWNyZXQ="},
        )

    vaults, whoami, token = _record(flow)
    text = json.dumps([vaults, whoami, token])
    for secret in (
        "whsec_deep",
        "oat_deep",
        "deep_client",
        "oac_deep",
        "deadbeef",
        "oac_in_text",
        "oat_in_query",
        "t0p",
        "oac_form",
        "cs_x",
        "bW9ja",
        "abcdefghijklmnop",
    ):
        assert secret not in text, secret
    item = vaults["response"]["body"]["deep"][0]["items"][0]
    assert item["signing_secret"] == item["access_token"] == item["client_secret"] == "[redacted]"
    assert item["code"] == "[redacted]"
    assert item["download_url"] == "https://x.example/d?expires=9&signature=[redacted]"
    assert item["note"] == "see /v1/x?code=[redacted]&state=s"
    assert vaults["response"]["body"]["error"]["code"] == "invalid_grant"  # an error code
    assert whoami["request"]["query"] == {"access_token": "[redacted]", "state": "kept"}
    assert whoami["request"]["headers"]["authorization"] == "Bearer oat_\u20261234"
    assert whoami["request"]["headers"]["x-mock-admin-token"] == "[redacted]"
    assert token["request"]["headers"]["authorization"] == "Basic [redacted]"
    assert token["request"]["body"] == {
        "grant_type": "authorization_code",
        "code": "[redacted]",
        "client_secret": "[redacted]",
    }


def test_hop_by_hop_headers_stop_at_the_proxy_and_others_pass() -> None:
    async def flow(proxy: httpx.AsyncClient, upstream: httpx.AsyncClient) -> None:
        headers = {
            **AUTH,
            "Connection": "keep-alive, X-Hop",
            "X-Hop": "1",
            "X-Keep": "2",
            "TE": "trailers",
            "Proxy-Authorization": "Basic eA==",
        }
        request = proxy.build_request("GET", "/eu/v1/whoami", headers=headers)
        del request.headers["user-agent"]  # the client sent none: the proxy adds none either
        assert (await proxy.send(request)).status_code == 200
        seen = (await upstream.get("/_mock/requests")).json()["data"][0]
        assert seen["path"] == "/eu/v1/whoami"
        sent = seen["request"]["headers"]
        assert sent["x-keep"] == "2"
        assert sent["host"] == "upstream"
        for name in ("connection", "x-hop", "te", "proxy-authorization", "user-agent"):
            assert name not in sent, name

    _record(flow)


def test_a_streamed_request_body_is_forwarded_and_recorded() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for part in (b'{"title": "Streamed", ', b'"vault_id": "vault_mock_us"}'):
            yield part

    async def flow(proxy: httpx.AsyncClient, upstream: httpx.AsyncClient) -> None:
        made = await proxy.post(
            "/v1/documents", content=chunks(), headers={**AUTH, "Content-Type": "application/json"}
        )
        assert made.status_code == 201
        assert made.json()["title"] == "Streamed"

    (exchange,) = _record(flow)
    assert exchange["request"]["body"] == {"title": "Streamed", "vault_id": "vault_mock_us"}
    assert exchange["response"]["status"] == 201


def test_a_body_too_big_to_keep_is_summarised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mockserver.fidelity.proxy.BODY_KEPT", 64)
    body = json.dumps({"title": "x" * 200, "vault_id": "vault_mock_us"}).encode()

    async def flow(proxy: httpx.AsyncClient, upstream: httpx.AsyncClient) -> None:
        made = await proxy.post(
            "/v1/documents", content=body, headers={**AUTH, "Content-Type": "application/json"}
        )
        assert made.status_code == 201

    (exchange,) = _record(flow)
    assert exchange["request"]["body"] == f"[{len(body)} bytes, not recorded]"
    assert (
        exchange["response"]["body"]
        == f"[{exchange['response']['headers']['content-length']} bytes, not recorded]"
    )
