"""Caps on what grows with traffic rather than with data, driven past through HTTP: the rate
windows of client addresses and of credentials, OAuth codes and tokens, and the cache of
resolved API keys. Past each cap the oldest is forgotten, the newest still works, and nothing
else changes."""

from __future__ import annotations

import asyncio
import base64
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.domain.oauth_state import CODES_KEPT, TOKENS_KEPT
from mockserver.domain.ratelimit import ANONYMOUS_CAPACITY, ANONYMOUS_PLAN, CREDENTIAL_CAPACITY
from mockserver.web.app import create_app
from tests.support.asgi import Answer, request
from tests.support.oauth import AUTHORIZE, CLIENT_ID, SECRET, TOKEN

BURST = ANONYMOUS_PLAN[1]


def address(n: int) -> str:
    return f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


def test_anonymous_windows_keep_the_latest_addresses(fresh_app: Starlette) -> None:
    async def whoami(n: int) -> int:
        answer = await request(fresh_app, "GET", "/v1/whoami", client=(address(n), 40000))
        assert answer.status == 401  # no credential: limited by address
        value = answer.header("x-ratelimit-remaining")
        assert value is not None
        return int(value)

    async def drive() -> None:
        assert await whoami(0) == BURST - 1
        assert await whoami(0) == BURST - 2
        for n in range(1, ANONYMOUS_CAPACITY + 1):  # as many new addresses as are kept
            assert await whoami(n) == BURST - 1
        assert await whoami(ANONYMOUS_CAPACITY) == BURST - 2  # the newest kept its window
        assert await whoami(0) == BURST - 1  # the oldest was forgotten: a fresh window
        assert len(fresh_app.state.store.rate_limits._anonymous) == ANONYMOUS_CAPACITY

    asyncio.run(drive())


@pytest.fixture(scope="module")
def unlimited_app() -> Starlette:
    """Rate limits reported but not enforced: the OAuth endpoints are limited by address."""
    return create_app(Settings(clock_mode="frozen", rate_limit=False))


@pytest.fixture
def oauth(unlimited_app: Starlette) -> OAuth:
    unlimited_app.state.store.reset()
    return OAuth(unlimited_app)


class OAuth:
    """The authorization-code flow over raw ASGI: thousands of logins in a second or two."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        basic = base64.b64encode(f"{CLIENT_ID}:{SECRET}".encode())
        self.client_auth = [
            (b"authorization", b"Basic " + basic),
            (b"content-type", b"application/x-www-form-urlencoded"),
        ]

    async def code(self) -> str:
        query = urlencode({"response_type": "code", "client_id": CLIENT_ID, "state": "s"})
        answer = await request(self.app, "GET", AUTHORIZE, query=query.encode())
        assert answer.status == 302, answer.body
        location = answer.header("location") or ""
        return parse_qs(urlsplit(location).query)["code"][0]

    async def exchange(self, code: str) -> Answer:
        form = urlencode({"grant_type": "authorization_code", "code": code})
        return await request(
            self.app, "POST", TOKEN, headers=self.client_auth, chunks=[form.encode()]
        )

    async def token(self) -> str:
        answer = await self.exchange(await self.code())
        assert answer.status == 200, answer.body
        token: str = answer.json()["access_token"]
        return token

    async def whoami(self, token: str) -> Answer:
        headers = [(b"authorization", f"Bearer {token}".encode())]
        return await request(self.app, "GET", "/v1/whoami", headers=headers)


def used(answer: Answer) -> int:
    """How many requests the answer's rate window has counted."""
    return BURST - int(answer.header("x-ratelimit-remaining") or "")


def test_unused_codes_are_capped_oldest_first(oauth: OAuth) -> None:
    async def drive() -> None:
        oldest = await oauth.code()
        codes = [await oauth.code() for _ in range(CODES_KEPT)]
        refused = await oauth.exchange(oldest)
        assert refused.status == 400
        assert refused.json()["error"]["code"] == "invalid_grant"
        assert refused.json()["error"]["message"] == "Invalid authorization code."
        assert (await oauth.exchange(codes[-1])).status == 200
        assert (await oauth.exchange(codes[0])).status == 200  # the oldest kept one works

    asyncio.run(drive())


def test_tokens_and_their_rate_windows_are_capped_oldest_first(oauth: OAuth) -> None:
    async def drive() -> None:
        tokens = []
        for _ in range(TOKENS_KEPT + 1):
            token = await oauth.token()
            answer = await oauth.whoami(token)
            assert answer.status == 200
            assert used(answer) == 1
            tokens.append(token)
        forgotten = await oauth.whoami(tokens[0])
        assert forgotten.status == 401
        assert "Invalid access token" in forgotten.json()["error"]["message"]
        assert used(await oauth.whoami(tokens[-1])) == 2  # the newest window is kept
        early = await oauth.whoami(tokens[-CREDENTIAL_CAPACITY - 1])
        assert early.status == 200  # the token is kept; its window was not: a fresh one
        assert used(early) == 1

    asyncio.run(drive())


def test_resolved_keys_are_a_bounded_cache_that_never_answers_stale(
    unlimited_app: Starlette,
) -> None:
    """More distinct Authorization values of one key than the principal cache keeps
    (`Bearer` and the key apart by 1 to 1,100 spaces): each resolves to the key as the store
    has it, before and after the cache empties itself."""
    unlimited_app.state.store.reset()
    key = unlimited_app.state.store.keys["sk_test_mock_full"]

    async def whoami(spaces: int) -> Answer:
        value = "Bearer" + " " * spaces + "sk_test_mock_full"
        headers = [(b"authorization", value.encode())]
        return await request(unlimited_app, "GET", "/v1/whoami", headers=headers)

    async def drive() -> None:
        for spaces in range(1, 1_101):
            answer = await whoami(spaces)
            assert answer.status == 200
            assert answer.json()["account_id"] == "acct_mock_us"
        key.revoked = True
        try:
            for spaces in (1, 600, 1_100):  # the oldest, one cleared away, the newest
                assert (await whoami(spaces)).status == 401
        finally:
            key.revoked = False
        assert (await whoami(1)).status == 200

    asyncio.run(drive())
