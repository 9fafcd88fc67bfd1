"""`mock_server`'s handle: one test's view of the session's mock, over HTTP.

A `MockServer` holds what serves the mock (`Served`: the plugin's `LiveServer`, or a server
that already runs, `remote_session.RemoteServer`) and reaches its control plane through one
admin client, made by the first call that needs it. `mock_account` (account.py) loads its
scenarios through the handle too, so a refused scenario is `ScenarioRefused` from both.
"""

from __future__ import annotations

import ssl
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx
import pytest

from mockserver.core.errors import ScenarioError
from mockserver.seeds.source_text import read_source
from mockserver.testing.controls import Controls
from mockserver.testing.root_client import RootClient

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from mockserver.domain.store import Store

FULL_KEY = "sk_test_mock_full"  # the default seed's full-scope key
ADMIN_HEADER = "X-Mock-Admin-Token"  # the control plane's token, on a server that has one


class ScenarioRefused(RuntimeError):
    """A scenario the mock would not load: a bad file, or a name it does not have. `str` is
    what the mock said: one `file:line: message` line per problem of a file."""


class SharedServerError(RuntimeError):
    """What a test may not do to a server it shares with others (reset it, reach its app)."""


class Served(Protocol):
    """What serves the mock a handle talks to: a `LiveServer`, or a `RemoteServer`."""

    @property
    def base_url(self) -> str: ...

    @property
    def tls(self) -> object: ...  # true when it serves HTTPS

    @property
    def ca_bundle(self) -> Path | None: ...

    @property
    def app(self) -> Starlette: ...

    def client_context(self) -> ssl.SSLContext | None: ...

    def stop(self, *, wait: bool = True) -> None: ...


def _scenario_text(path: Path) -> str:
    """The text of a scenario file; ScenarioRefused when it cannot be read, as loading says."""
    __tracebackhide__ = True
    try:
        return read_source(path, ScenarioError, "scenario")
    except ScenarioError as error:
        raise ScenarioRefused(str(error)) from None


def load_marked(load: Callable[[str | Path], Any], node: pytest.Item) -> None:
    """Load the test's `mock_scenario` scenarios with `load` (a handle's or an account's
    `load_scenario`); one the mock refuses fails the test with the mock's lines alone."""
    marker = node.get_closest_marker("mock_scenario")
    for name in marker.args if marker is not None else ():
        refused = _refusal(load, name, node)
        if refused is not None:  # the mock's lines, without a traceback
            pytest.fail(str(refused), pytrace=False)


def marked_file(name: str | Path, node: pytest.Item) -> str | Path:
    """What a `mock_scenario` argument names: a scenario's name as given; a relative `.yaml`
    (`.yml`) file from the test file's folder, else from the rootdir, so the marker means the
    same file wherever pytest is started. ScenarioRefused naming the paths tried if neither
    has it."""
    path = Path(name)
    if path.suffix not in (".yaml", ".yml") or path.is_absolute():
        return name
    tried: list[Path] = []
    for folder in (node.path.parent, node.config.rootpath):
        candidate = folder / path
        if candidate not in tried:
            tried.append(candidate)
        if candidate.exists():
            return candidate  # a file that cannot be read says so, at its own path
    raise ScenarioRefused(
        f"{name}: no such scenario file (tried {' and '.join(str(p) for p in tried)})"
    )


def _refusal(
    load: Callable[[str | Path], Any], name: str, node: pytest.Item
) -> ScenarioRefused | None:
    """Load one scenario; why the mock refused it, if it did (returned, not raised: failing
    the test in an `except` would print it twice)."""
    try:
        load(marked_file(name, node))
    except ScenarioRefused as refused:
        return refused
    return None


class MockServer(Controls):
    """One test's view of the running mock, with the request assertions of `Verifying`."""

    def __init__(
        self,
        server: Served,
        api_key: str = FULL_KEY,
        *,
        admin_token: str | None = None,
        shared: bool = False,
    ) -> None:
        self._server = server
        self.api_key = api_key
        self._admin_token = admin_token  # a running server's (`--mockserver-url`)
        self._shared = shared  # a server others use too: nothing resets it
        # What the clients of this server trust: its test CA with TLS; over plain HTTP nothing
        # (an empty trust store): they reach the server without TLS, so no client loads the
        # system's CA bundle for it, and an `https://` URL given to one fails verification
        # rather than being trusted.
        context = server.client_context() if server.tls else None
        self._verify = context or ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        # One control-plane client for the session, made by the first control call: building
        # one is costly, and many tests make none.
        self._admin_client: httpx.Client | None = None

    @property
    def url(self) -> str:
        """The server's root, e.g. `http://127.0.0.1:PORT` (the control plane is under it)."""
        return self._server.base_url

    @property
    def base_url(self) -> str:
        """`{base_url}` of the API: the account's default region."""
        return f"{self.url}/v1"

    @property
    def base_url_us(self) -> str:
        return f"{self.url}/us/v1"

    @property
    def base_url_eu(self) -> str:
        return f"{self.url}/eu/v1"

    @property
    def ca_bundle(self) -> Path | None:
        """The CA bundle to trust when the server runs with TLS, else None."""
        return self._server.ca_bundle

    @property
    def app(self) -> Starlette:
        return self._server.app

    @property
    def store(self) -> Store:
        store: Store = self._server.app.state.store
        return store

    def client(self, api_key: str | None = None, **kwargs: Any) -> httpx.Client:
        """An httpx client on the server's root (`url`) over the socket, as `mock_client` is,
        authenticated with a key; a path from `/v1` is deprecated (`root_client.py`). Other
        keyword arguments are httpx's (`verify=` replaces the server's trust)."""
        headers = {"Authorization": f"Bearer {api_key or self.api_key}"}
        kwargs.setdefault("verify", self._verify)
        return RootClient(base_url=self.url, headers=headers, **kwargs)

    @property
    def _admin(self) -> httpx.Client:
        """The session's control-plane client, made on first use."""
        if self._admin_client is None:
            token = self._admin_token
            headers = {} if token is None else {ADMIN_HEADER: token}
            self._admin_client = httpx.Client(
                base_url=self._server.base_url, verify=self._verify, timeout=60, headers=headers
            )
        return self._admin_client

    def _close(self) -> None:
        """Close the control-plane client, if one was made (the server is the session's)."""
        if self._admin_client is not None:
            self._admin_client.close()

    def _control_client(self) -> httpx.Client:
        return self._admin

    def reset(self) -> None:
        """Back to the seed: data, clock, limits, journals. Refused against a shared server
        (`--mockserver-url`): reset the test's own `mock_account` instead."""
        if self._shared:
            raise SharedServerError(
                f"The mock at {self.url} is shared (--mockserver-url): a test does not reset "
                "it. Give the test its own account (mock_account) and reset that."
            )
        super().reset()

    def legal_hold(self, document_id: str, on: bool = True) -> None:
        self._call("POST", f"/documents/{document_id}/legal_hold", json={"on": on})

    def load_scenario(self, name_or_path: str | Path) -> Any:
        """Load a scenario by name (from the shipped scenarios) or from a YAML file (a path
        ending in .yaml or .yml). A bad one raises ScenarioRefused and loads nothing."""
        __tracebackhide__ = True  # a refusal is shown at the test's line, not in the plugin
        return self._post_scenario("/_mock/scenarios", name_or_path)

    def _post_scenario(self, endpoint: str, name_or_path: str | Path) -> Any:
        """Load a scenario through `endpoint` (the server's, or an account's)."""
        __tracebackhide__ = True
        path = Path(name_or_path)
        if path.suffix in (".yaml", ".yml"):
            body = {"yaml": _scenario_text(path), "source": str(path)}  # errors name the file
        else:
            body = {"name": str(name_or_path)}
        response = self._admin.post(endpoint, json=body)
        if response.status_code in (404, 422):  # not a scenario, or a bad one
            raise ScenarioRefused(response.json()["error"]["message"])
        if response.status_code >= 400:
            raise RuntimeError(f"POST {endpoint} failed: {response.status_code} {response.text}")
        loaded = response.json()
        source = body.get("source", loaded.get("source", name_or_path))
        for said in loaded.get("warnings", ()):  # rules that can never fire: in pytest's summary
            warnings.warn(f"{source}:{said['line']}: {said['message']}", UserWarning, stacklevel=2)
        return loaded

    def new_account(self, **options: Any) -> dict[str, Any]:
        """A fresh isolated account with its keys, for tests that must not share data."""
        account: dict[str, Any] = self._call("POST", "/accounts", json=options)
        return account
