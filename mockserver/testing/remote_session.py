"""The pytest plugin against a server that already runs: `--mockserver-url URL` or
`MOCKSERVER_URL` (with `MOCKSERVER_ADMIN_TOKEN` when the server has an admin token).

Nothing is started: the fixtures talk to that server over HTTP, a container's, a compose
service's or a team's. It is shared, so nothing here resets it: `mock_server.reset()` refuses,
a test's own state lives in its `mock_account` (each test its own account, also under xdist),
and a `mock_scenario` marker loads into the test's account. `mock_client` is an httpx client
over the socket (there is no app in this process); `mock_app` is not available.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from mockserver.testing.account import MockAccount, account_name
from mockserver.testing.mock_client import MockClient
from mockserver.testing.server import ADMIN_HEADER, FULL_KEY, MockServer, SharedServerError
from mockserver.testing.verification import JOURNAL_SHOWN, journal_section

if TYPE_CHECKING:
    from starlette.applications import Starlette


class RemoteServer:
    """A server running elsewhere, as a `MockServer` handle sees a live one."""

    tls = False
    ca_bundle = None

    def __init__(self, url: str, admin_token: str | None) -> None:
        self.base_url = url.rstrip("/")
        self.admin_token = admin_token

    def client_context(self) -> None:
        return None

    @property
    def app(self) -> Starlette:
        raise SharedServerError(
            f"The mock runs elsewhere ({self.base_url}): there is no app in this process."
        )

    def stop(self, wait: bool = True) -> None:
        """Nothing to stop: the server is not this session's."""


class RemoteSession:
    """The session's view of a running server: the `LocalSession` of `--mockserver-url`."""

    def __init__(self, url: str, admin_token: str | None) -> None:
        self.server_info = RemoteServer(url, admin_token)
        self._server: MockServer | None = None

    @property
    def app(self) -> Starlette:
        return self.server_info.app

    def server(self, *, tls: bool) -> MockServer:
        """The handle on the running server; checked to answer on first use."""
        if tls:
            pytest.fail(
                "mock_server(tls=True) needs the plugin's own server; with --mockserver-url, "
                "give the running server's https:// URL instead.",
                pytrace=False,
            )
        if self._server is None:
            token = self.server_info.admin_token
            handle = MockServer(self.server_info, admin_token=token, shared=True)
            try:
                answer = handle._admin.get("/_mock/clock")
            except httpx.TransportError as error:
                pytest.fail(
                    f"No mockserver answers at {self.server_info.base_url} ({error}).",
                    pytrace=False,
                )
            if answer.status_code in (401, 403):
                pytest.fail(
                    f"The mockserver at {self.server_info.base_url} refused the control plane "
                    f"({answer.status_code}): set MOCKSERVER_ADMIN_TOKEN to its admin token.",
                    pytrace=False,
                )
            self._server = handle
        return self._server

    def fresh(self, request: pytest.FixtureRequest) -> None:
        """Nothing is reset on a shared server. A `mock_scenario` marker loads into the test's
        account (`mock_account`); without one there is nowhere to load it."""
        marker = request.node.get_closest_marker("mock_scenario")
        if marker is not None and "mock_account" not in request.fixturenames:
            pytest.fail(
                "@pytest.mark.mock_scenario against a shared server (--mockserver-url) loads "
                "into the test's own account: use the mock_account fixture.",
                pytrace=False,
            )

    def account(self, node_id: str) -> MockAccount:
        """`mock_account`: the test's own account on the running server."""
        return MockAccount.open(self.server(tls=False), account_name(node_id))

    @contextlib.contextmanager
    def client(self) -> Iterator[MockClient]:
        """`mock_client` over the socket, with the full key and the request assertions (the
        control plane reached with the admin token)."""
        headers = {"Authorization": f"Bearer {FULL_KEY}"}
        token = self.server_info.admin_token
        if token is not None:
            headers[ADMIN_HEADER] = token
        with MockClient(base_url=self.server_info.base_url, headers=headers) as client:
            yield client

    def unused_rules(self) -> list[str]:
        """Scenarios of a shared server are the accounts' (see `mock_account`)."""
        return []

    def journal_text(self, account: MockAccount | None) -> str:
        """The "mock journal" section: the test's account's latest requests (the server's
        when the test has no account)."""
        try:
            if account is not None:
                entries = account.requests(limit=JOURNAL_SHOWN)
            elif self._server is not None:
                admin = self._server._admin
                listed = admin.get("/_mock/requests", params={"limit": JOURNAL_SHOWN})
                entries = listed.json()["data"]
            else:
                return f"No journal: the mockserver at {self.server_info.base_url} never answered."
        except Exception as error:  # the report must not fail: say why it has no journal
            return f"The journal could not be read: {error}"
        shown: list[dict[str, Any]] = list(reversed(entries))  # oldest first
        return journal_section(shown, len(shown))

    def close(self) -> None:
        if self._server is not None:
            self._server._close()

    def join(self) -> None:
        """Nothing runs here to wait for."""
