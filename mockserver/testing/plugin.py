"""The pytest plugin: the mock as a fixture. Installing the package registers it (pytest11).

One app per test session (per xdist worker), served over a real socket on a free port, reset
before every test that uses it, with a frozen clock. Fixtures:

- `mock_server`: a `MockServer` handle on the live server (`base_url`, `api_key`, clock and
  control-plane helpers); `@pytest.mark.mock_server(tls=True)` (or indirect parametrisation
  with `{"tls": True}`) serves the same app over HTTPS with a throwaway CA at `ca_bundle`.
- `mock_client`: an in-process httpx client on the same app, authenticated with the full key.
- `@pytest.mark.mock_scenario("name")`: load a scenario for one test.

Errors raised inside the server while a test runs fail that test with their traceback.

Every pytest session of an environment with mockserver installed imports this module, whether
or not it uses a fixture, so it imports nothing heavy: the app, Starlette, httpx and uvicorn
are imported by the first fixture that needs them (tests/e2e/test_plugin_import.py keeps it so).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from mockserver.core.config import DEFAULT_RANDOM_SEED, Settings

if TYPE_CHECKING:
    import httpx
    from starlette.applications import Starlette

    from mockserver.domain.store import Store
    from mockserver.testing.inprocess import InProcessTransport
    from mockserver.testing.live import LiveServer

FULL_KEY = "sk_test_mock_full"


class MockServer:
    """One test's view of the running mock."""

    def __init__(self, server: LiveServer, admin: httpx.Client, api_key: str = FULL_KEY) -> None:
        self._server = server
        self.api_key = api_key
        self._verify: Any = server.client_context() if server.tls else True
        self._admin = admin  # the session's control-plane client: building one costs ~20 ms

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
        """An httpx client on `base_url` over the socket, authenticated with a key."""
        import httpx

        headers = {"Authorization": f"Bearer {api_key or self.api_key}"}
        return httpx.Client(base_url=self.base_url, headers=headers, verify=self._verify, **kwargs)

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._admin.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path} failed: {response.status_code} {response.text}")
        return response.json()

    def now(self) -> str:
        """The mock clock, RFC 3339."""
        now: str = self._call("GET", "/_mock/clock")["now"]
        return now

    def advance(self, seconds: float) -> str:
        """Move the clock forward, running every timer that falls due; the new time."""
        now: str = self._call("POST", "/_mock/clock/advance", json={"seconds": seconds})["now"]
        return now

    def set_time(self, at: str) -> str:
        """Set the clock (RFC 3339); forward runs due timers."""
        now: str = self._call("POST", "/_mock/clock/set", json={"at": at})["now"]
        return now

    def reset(self) -> None:
        """Back to the seed: data, clock, limits, journals."""
        self._call("POST", "/_mock/reset")

    def legal_hold(self, document_id: str, on: bool = True) -> None:
        self._call("POST", f"/_mock/documents/{document_id}/legal_hold", json={"on": on})

    def load_scenario(self, name_or_path: str | Path) -> Any:
        """Load a scenario by name (from the shipped scenarios) or from a YAML file."""
        path = Path(name_or_path)
        if path.suffix in (".yaml", ".yml") and path.exists():
            body = {"yaml": path.read_text(), "source": str(path)}  # errors name the file
            return self._call("POST", "/_mock/scenarios", json=body)
        return self._call("POST", "/_mock/scenarios", json={"name": str(name_or_path)})

    def requests(self, **filters: Any) -> list[dict[str, Any]]:
        """The request journal, newest first, filtered like `GET /_mock/requests`."""
        data: list[dict[str, Any]] = self._call("GET", "/_mock/requests", params=filters)["data"]
        return data

    def deliveries(self, **filters: Any) -> list[dict[str, Any]]:
        """Webhook deliveries with every attempt, filtered like the deliveries journal."""
        path = "/_mock/webhooks/deliveries"
        data: list[dict[str, Any]] = self._call("GET", path, params=filters)["data"]
        return data

    def wait_for_deliveries(self) -> None:
        """Return once no webhook attempt is in flight (attempts run in the background)."""
        self._call("POST", "/_mock/webhooks/wait")

    def new_account(self, **options: Any) -> dict[str, Any]:
        """A fresh isolated account with its keys, for tests that must not share data."""
        account: dict[str, Any] = self._call("POST", "/_mock/accounts", json=options)
        return account


def admin_client(server: LiveServer) -> httpx.Client:
    """A client for the control plane of `server`."""
    import httpx

    verify: Any = server.client_context() if server.tls else True
    return httpx.Client(base_url=server.base_url, verify=verify, timeout=60)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockserver")
    group.addoption("--mock-seed", type=Path, default=None, help="seed file for the mock")
    group.addoption(
        "--mock-random-seed", type=int, default=DEFAULT_RANDOM_SEED, help="the mock's random seed"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mock_scenario(name): load a mockserver scenario")
    config.addinivalue_line("markers", "mock_server(tls=False): options of the mock_server")


@pytest.fixture(scope="session")
def mock_app(pytestconfig: pytest.Config) -> Starlette:
    """The session's mock app: frozen clock, the chosen seed and random seed."""
    from mockserver.web.app import create_app

    settings = Settings(
        seed_path=pytestconfig.getoption("--mock-seed"),
        clock_mode="frozen",
        random_seed=pytestconfig.getoption("--mock-random-seed"),
    )
    return create_app(settings)


def _live(app: Starlette, *, tls: bool) -> Iterator[MockServer]:
    from mockserver.testing.live import LiveServer

    server = LiveServer(app, tls=tls).start()
    with admin_client(server) as admin:
        yield MockServer(server, admin)
    server.stop()


@pytest.fixture(scope="session")
def _mock_live(mock_app: Starlette) -> Iterator[MockServer]:
    yield from _live(mock_app, tls=False)


@pytest.fixture(scope="session")
def _mock_live_tls(mock_app: Starlette) -> Iterator[MockServer]:
    yield from _live(mock_app, tls=True)


@pytest.fixture(scope="session")
def _mock_transport(mock_app: Starlette) -> Iterator[InProcessTransport]:
    """The session's in-process transport: one event loop thread, which every test's
    `mock_client` borrows."""
    from mockserver.testing.inprocess import InProcessTransport

    transport = InProcessTransport(mock_app)
    yield transport
    transport.close()


@pytest.fixture
def _mock_fresh(request: pytest.FixtureRequest, mock_app: Starlette) -> Iterator[Store]:
    """Reset the mock before the test, load its scenario, and fail it on server errors."""
    store: Store = mock_app.state.store
    store.reset()
    store.errors.clear()
    marker = request.node.get_closest_marker("mock_scenario")
    if marker is not None:
        handle: MockServer = request.getfixturevalue("_mock_live")
        for name in marker.args:
            handle.load_scenario(name)
    yield store
    if store.errors:
        error = store.errors[0]
        trace = "".join(traceback.format_exception(error))
        pytest.fail(f"the mock server raised an unexpected error:\n{trace}", pytrace=False)


@pytest.fixture
def mock_server(request: pytest.FixtureRequest, _mock_fresh: Store) -> MockServer:
    """The live mock (real HTTP on a free port), reset for this test."""
    options: dict[str, Any] = dict(getattr(request, "param", None) or {})
    marker = request.node.get_closest_marker("mock_server")
    if marker is not None:
        options.update(marker.kwargs)
    name = "_mock_live_tls" if options.get("tls") else "_mock_live"
    handle: MockServer = request.getfixturevalue(name)
    return handle


@pytest.fixture
def mock_client(_mock_transport: InProcessTransport, _mock_fresh: Store) -> Iterator[httpx.Client]:
    """An in-process httpx client on the mock (no socket), authenticated with the full key;
    paths start at the root, e.g. `mock_client.get("/v1/whoami")`."""
    headers = {"Authorization": f"Bearer {FULL_KEY}"}
    with _mock_transport.client(base_url="http://mockserver", headers=headers) as client:
        yield client
    _mock_transport.cancel_tasks()  # what the app left running ends with the test
