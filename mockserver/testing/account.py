"""`mock_account`: one test's own account on the session's server (or a shared one).

Each test gets an account made through `POST /_mock/accounts`, with a frozen clock of its own
and named after the test's node id, so its ids, keys and answers are the same whatever other
tests run before or beside it (xdist workers on one server included). Everything here acts on
that account alone: its clock, reset, snapshots, scenarios, journal and the request assertions
of `Verifying`. The account is removed when the test ends.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mockserver.domain.accounts import NAME_MAX
from mockserver.testing.controls import Controls
from mockserver.testing.server import load_marked

if TYPE_CHECKING:
    import httpx
    import pytest

    from mockserver.testing.server import MockServer


def account_name(node_id: str) -> str:
    """The account name of a test: its node id, shortened with a digest past the limit."""
    if len(node_id) <= NAME_MAX:
        return node_id
    digest = hashlib.sha256(node_id.encode()).hexdigest()[:16]
    return f"{node_id[: NAME_MAX - 17]}#{digest}"


class MockAccount(Controls):
    """One test's account: `id`, `keys` (`full`, `readonly`), `api_key` (the full one), and the
    control of its own sandbox (the helpers of `Controls`, on `/_mock/accounts/{id}`)."""

    def __init__(self, server: MockServer, made: dict[str, Any]) -> None:
        self._server = server
        self._admin = server._admin
        self.id: str = made["id"]
        self.keys: dict[str, str] = made["keys"]
        self.api_key = self.keys["full"]
        self.name: str = made["name"]
        self._base = f"/_mock/accounts/{self.id}"

    @classmethod
    def open(cls, server: MockServer, name: str) -> MockAccount:
        """Make the account (a frozen clock of its own, at the server's start time)."""
        body = {"name": name, "clock": {"mode": "frozen"}}
        response = server._admin.post("/_mock/accounts", json=body)
        if response.status_code != 201:
            raise RuntimeError(
                f"POST /_mock/accounts failed: {response.status_code} {response.text}"
            )
        return cls(server, response.json())

    @property
    def base_url(self) -> str:
        """`{base_url}` of the API (`http://127.0.0.1:PORT/v1`)."""
        return self._server.base_url

    def client(self, api_key: str | None = None, **kwargs: Any) -> httpx.Client:
        """An httpx client on the server's root over the socket (`client.get("/v1/whoami")`),
        authenticated as this account (its full key unless told otherwise)."""
        return self._server.client(api_key or self.api_key, **kwargs)

    def _control_client(self) -> httpx.Client:
        return self._admin

    def load_scenario(self, name_or_path: str | Path) -> Any:
        """Load a scenario for this account only, by name or from a YAML file; a bad one
        raises ScenarioRefused and loads nothing."""
        __tracebackhide__ = True
        return self._server._post_scenario(f"{self._base}/scenarios", name_or_path)

    def _load_marked(self, node: pytest.Item) -> None:
        """Load the test's `mock_scenario` scenarios into this account; one the mock refuses
        fails the test's setup with the mock's lines."""
        load_marked(self.load_scenario, node)

    def remove(self) -> None:
        """Remove the account from the server (the fixture does it after the test)."""
        response = self._admin.delete(self._base)
        if response.status_code not in (200, 404):
            raise RuntimeError(f"DELETE {self._base} failed: {response.status_code}")
