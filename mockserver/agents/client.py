"""How the MCP tools reach the mock: ordinary HTTP requests, so every guard, the durable log
and the journal apply to them exactly as to any client's.

In the server itself (`/_mock/mcp`) and in a sandbox of `mockserver mcp`'s own, the requests
enter the whole app in-process through `httpx.ASGITransport`; with `--url`, they go over the
network. A control-plane call answers its JSON or raises `Refused` with the mock's error
envelope; a broken connection (a scenario's transport fault) raises `Broken`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import orjson

from mockserver.engine.transport_error import TransportFaultError

CONTROL = "/_mock"
USER_AGENT = "mockserver-mcp/1"
TIMEOUT = 60.0  # seconds: a clock move waits for the webhook attempts it runs
IN_PROCESS = "http://mock"  # the in-process base URL, which the browser guard trusts


class Refused(Exception):
    """The mock answered an error: `status` and its envelope (`body`), `hint`, what to do
    next, said to a model, and `detail`, the whole answer where there is more to it."""

    def __init__(self, status: int, body: Any, hint: str = "", detail: Any = None) -> None:
        super().__init__(f"{status}: {body!r}")
        self.status = status
        self.body = body
        self.hint = hint
        self.detail = detail


class Broken(Exception):
    """The connection broke before a whole answer came (a transport fault, or no server):
    `fault` is the fault's kind when the mock says which, `committed` whether the request
    ran."""

    def __init__(self, message: str, fault: str | None = None, committed: bool | None = None):
        super().__init__(message)
        self.fault = fault
        self.committed = committed


class MockClient:
    """Requests to one mock, through `http` (whose base URL and headers, the admin token
    included, are set); `account` scopes the control plane to that account's sandbox."""

    def __init__(self, http: httpx.AsyncClient, account: str | None = None) -> None:
        self.http = http
        self.account = account

    @classmethod
    def in_process(
        cls, app: Any, admin_token: str | None = None, account: str | None = None
    ) -> MockClient:
        """A client of the ASGI app `app` (the whole app: its middleware, its routes)."""
        transport = httpx.ASGITransport(app=app)
        return cls(_http(transport, IN_PROCESS, admin_token), account)

    @classmethod
    def remote(
        cls, url: str, admin_token: str | None = None, account: str | None = None
    ) -> MockClient:
        """A client of the mock served at `url`."""
        return cls(_http(None, url.rstrip("/"), admin_token), account)

    async def aclose(self) -> None:
        await self.http.aclose()

    def scoped(self, path: str) -> str:
        """The control-plane path of `path` (`/reset`, `/clock/advance`, ...) for the scope:
        the server's, or the account's under `/_mock/accounts/{id}`."""
        if self.account is None:
            return f"{CONTROL}{path}"
        return f"{CONTROL}/accounts/{quote(self.account, safe='')}{path}"

    async def send(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """One request, answered whatever its status; Broken when no whole answer came."""
        content = None if body is None else orjson.dumps(body)
        sent = dict(headers or {})
        if content is not None:
            sent.setdefault("content-type", "application/json")
        try:
            return await self.http.request(
                method, path, content=content, params=params, headers=sent
            )
        except TransportFaultError as faulted:  # in-process: the fault the app acted out
            fault = faulted.response.fault
            assert fault is not None
            raise Broken(
                f"The connection broke before the answer arrived ({fault.kind}).",
                fault.kind,
                fault.committed,
            ) from None
        except httpx.HTTPError as error:
            raise Broken(
                f"No whole answer from the mock at {self.http.base_url} "
                f"({error or type(error).__name__})."
            ) from None

    async def control(
        self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        """A `/_mock` call (`path` in full): its JSON on success, Refused otherwise."""
        response = await self.send(method, path, body=body, params=params)
        data = _parsed(response)
        if response.status_code >= 400:
            raise Refused(response.status_code, data)
        return data


def _http(
    transport: httpx.AsyncBaseTransport | None, base: str, token: str | None
) -> httpx.AsyncClient:
    headers = {"user-agent": USER_AGENT}
    if token is not None:
        headers["x-mock-admin-token"] = token
    return httpx.AsyncClient(
        transport=transport, base_url=base, headers=headers, timeout=TIMEOUT, trust_env=False
    )


def _parsed(response: httpx.Response) -> Any:
    """The body as JSON, else as text."""
    try:
        return response.json()
    except ValueError:
        return response.text
