"""What every `/_mock` endpoint is given: the request, its path parameters and query, its body
as JSON or bytes, and the sandbox it steers; and the admin token's guard.

The control plane reads its body as JSON whatever the Content-Type says (curl's `-d` declares
JSON as a form, and the control plane takes no forms). With `--admin-token`, every call must
carry `X-Mock-Admin-Token`. Without one, the browser guard (`origin_guard.py`) refuses every
`/_mock` request a web page could send, before anything reads it (`origin_guard.browser_guard`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mockserver.core.errors import AuthenticationError, PayloadTooLarge
from mockserver.core.secrets import same_secret
from mockserver.engine.accounts.sandboxes import AccountSandboxes
from mockserver.engine.control import Control
from mockserver.engine.journal import RequestState
from mockserver.engine.request import (
    MAX_BODY,
    Request,
    Response,
    Serve,
    check_json_head,
    parse_json_object,
    query_pairs,
)
from mockserver.engine.sandbox import SandboxState

Endpoint = Callable[["ControlCall"], Awaitable[Response]]


class ControlCall:
    """One control-plane request: `sandbox` is the one it steers (an account's, under
    `/_mock/accounts/{account_id}/`), `server` the server's."""

    __slots__ = ("_query", "own_requests", "params", "sandbox", "server", "state")

    def __init__(
        self,
        sandbox: SandboxState,
        state: RequestState,
        params: dict[str, Any],
        own_requests: Serve,
        server: SandboxState | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.own_requests = own_requests  # how the sandbox's own requests enter the app
        self.server = server or sandbox
        self.state = state
        self.params = params
        self._query: dict[str, str] | None = None

    @property
    def tenants(self) -> AccountSandboxes[SandboxState]:
        """The server's account sandboxes."""
        tenants = self.server.tenants
        assert tenants is not None  # a server's sandbox always has them
        return tenants

    @property
    def request(self) -> Request:
        return self.state.request

    @property
    def control(self) -> Control:
        return self.sandbox.control

    @property
    def query(self) -> dict[str, str]:
        """The query's parameters (the last value of a repeated name)."""
        if self._query is None:
            self._query = dict(query_pairs(self.state.request.query))
        return self._query

    async def body(self) -> bytes:
        """The body as sent (its first bytes past the size limit)."""
        return await self.state.body(MAX_BODY)

    async def json(self) -> dict[str, Any]:
        """The body as a JSON object: 413 past the size limit, 400 when absent or not an
        object."""
        check_json_head(self.state.request.headers, MAX_BODY, any_content_type=True)
        return parse_json_object(await self.state.body(MAX_BODY), MAX_BODY)

    async def raw(self, max_bytes: int) -> bytes:
        """The body as bytes; 413 past `max_bytes`."""
        data = await self.state.body(max_bytes)
        if len(data) > max_bytes:
            raise PayloadTooLarge(f"Request body exceeds the limit of {max_bytes} bytes.")
        return data


def given_admin_token(request: Request) -> str:
    """The request's one `X-Mock-Admin-Token` value ("" when absent); 401 for two, whatever
    their values, as for two `Authorization` headers on the API: which one counts would be a
    guess."""
    values = [value for name, value in request.headers if name == b"x-mock-admin-token"]
    if len(values) > 1:
        raise AuthenticationError(
            "The request carries more than one X-Mock-Admin-Token header."
        ).because("authentication", reason="malformed")
    return values[0].decode("latin-1") if values else ""


def check_admin_token(admin_token: str | None, given: str) -> None:
    """401 unless no admin token is set or `given` is it (compared in constant time)."""
    if admin_token is not None and not same_secret(given, admin_token):
        raise AuthenticationError(
            "The /_mock control plane needs a valid X-Mock-Admin-Token header."
        )
