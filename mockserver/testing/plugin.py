"""The pytest plugin: the mock as a fixture. Installing the package registers it (pytest11).

One app per test session (per xdist worker), served over a real socket on a free port, reset
before every test that uses it, with a frozen clock. Fixtures:

- `mock_server`: a `MockServer` handle on the live server (`base_url`, `api_key`, clock and
  control-plane helpers); `@pytest.mark.mock_server(tls=True)` (or indirect parametrisation
  with `{"tls": True}`) serves the same app over HTTPS with a throwaway CA at `ca_bundle`.
- `mock_client`: an in-process httpx client on the same app, authenticated with the full key.
- `mock_account`: the test's own account on the live server, with its own frozen clock, named
  after the test's node id; nothing resets the server for it (testing/account.py).
- `@pytest.mark.mock_scenario("name")`: load a scenario for one test.

A scenario the mock refuses fails the test with the mock's `file:line: message` lines and no
frame of this module: `load_scenario` raises `ScenarioRefused` (its frames hidden from
pytest's traceback), and the marker fails the test's setup with the lines alone.

Both fixtures assert what the client sent (`assert_requested`, `assert_not_requested`,
`assert_requested_in_order`: testing/verification.py). A failed test that used one gets a
"mock journal" report section: its API requests, with `explain` under each error answer.
`--mock-strict-scenarios` fails a test whose loaded scenarios kept a rule that never fired.

Errors raised inside the server while a test runs fail that test with their traceback.

The session's mock is built with the cyclic collector paused, and what is alive then is frozen
until the session ends (testing/session_heap.py): the mock's state lives that long, so no
collection during a test walks it.

Every pytest session of an environment with mockserver installed imports this module, whether
or not it uses a fixture, so it imports nothing heavy: the app, Starlette, httpx and uvicorn
are imported by the first fixture that needs them (tests/e2e/test_plugin_import.py keeps it so).
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import pytest

from mockserver import Settings
from mockserver.testing.controls import Controls
from mockserver.testing.session_heap import SessionHeap

if TYPE_CHECKING:
    import ssl

    import httpx
    from starlette.applications import Starlette

    from mockserver.domain.store import Store
    from mockserver.engine.control import Control
    from mockserver.testing.account import MockAccount
    from mockserver.testing.inprocess import InProcessTransport
    from mockserver.testing.live import LiveServer
    from mockserver.testing.mock_client import MockClient
    from mockserver.testing.remote_session import RemoteServer, RemoteSession

_DEFAULTS = Settings()  # the options' defaults are the settings'
FULL_KEY = "sk_test_mock_full"
JOURNAL_SHOWN = 50  # requests at most in a failed test's "mock journal" section
_SESSION = pytest.StashKey["Session"]()
_ACCOUNT = pytest.StashKey["MockAccount"]()  # a test's account, for its report


class ScenarioRefused(RuntimeError):
    """A scenario the mock would not load: a bad file, or a name it does not have. `str` is
    what the mock said: one `file:line: message` line per problem of a file."""


def _scenario_text(path: Path) -> str:
    """The text of a scenario file; ScenarioRefused when it cannot be read, as loading says."""
    __tracebackhide__ = True
    from mockserver.core.errors import ScenarioError
    from mockserver.seeds.source_text import read_source

    try:
        return read_source(path, ScenarioError, "scenario")
    except ScenarioError as error:
        raise ScenarioRefused(str(error)) from None


class MockServer(Controls):
    """One test's view of the running mock, with the request assertions of `Verifying`."""

    def __init__(
        self,
        server: LiveServer | RemoteServer,
        api_key: str = FULL_KEY,
        *,
        admin_token: str | None = None,
        shared: bool = False,
    ) -> None:
        self._server = server
        self.api_key = api_key
        self._admin_token = admin_token  # a running server's (`--mockserver-url`)
        self._shared = shared  # a server others use too: nothing resets it
        self._tls: ssl.SSLContext | None = server.client_context() if server.tls else None
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
        authenticated with a key; a path from `/v1` is deprecated (`root_client.py`)."""
        from mockserver.testing.root_client import RootClient

        headers = {"Authorization": f"Bearer {api_key or self.api_key}"}
        return RootClient(base_url=self.url, headers=headers, verify=self._verify, **kwargs)

    @property
    def _verify(self) -> ssl.SSLContext | bool:
        """What the clients of this server verify with: its CA with TLS, else httpx's default."""
        return True if self._tls is None else self._tls

    @property
    def _admin(self) -> httpx.Client:
        """The session's control-plane client, made on first use."""
        if self._admin_client is None:
            import httpx

            token = self._admin_token
            headers = {} if token is None else {"X-Mock-Admin-Token": token}
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
            from mockserver.testing.remote_session import SharedServerError

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
        return response.json()

    def new_account(self, **options: Any) -> dict[str, Any]:
        """A fresh isolated account with its keys, for tests that must not share data."""
        account: dict[str, Any] = self._call("POST", "/accounts", json=options)
        return account


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockserver")
    group.addoption("--mock-seed", type=Path, default=None, help="seed file for the mock")
    group.addoption(
        "--mock-random-seed", type=int, default=_DEFAULTS.random_seed, help="the mock's random seed"
    )
    group.addoption(
        "--mock-idempotency-records",
        type=int,
        default=_DEFAULTS.idempotency_records,
        help="idempotent results the mock keeps per account and environment",
    )
    group.addoption(
        "--mockserver-url",
        default=os.environ.get("MOCKSERVER_URL") or None,
        help="use the mockserver already running at this URL (also MOCKSERVER_URL; its admin "
        "token from MOCKSERVER_ADMIN_TOKEN): no server is started, nothing shared is reset",
    )
    group.addoption(
        "--mock-strict-scenarios",
        action="store_true",
        default=False,
        help="fail a test whose loaded scenarios kept a rule that never fired",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mock_scenario(name): load a mockserver scenario")
    config.addinivalue_line("markers", "mock_server(tls=False): options of the mock_server")


def _create_app(config: pytest.Config) -> Starlette:
    """The session's mock app: frozen clock, the chosen seed and random seed."""
    from mockserver import create_app

    settings = Settings(
        seed_path=config.getoption("--mock-seed"),
        clock_mode="frozen",
        random_seed=config.getoption("--mock-random-seed"),
        idempotency_records=config.getoption("--mock-idempotency-records"),
    )
    return create_app(settings)


class _SessionMock:
    """The session's mock: its app, what serves it (each started on first use), and the
    reset that starts every test using it. One object, so a test's fixtures find all of it
    through one session fixture rather than a chain of them: pytest's cost per fixture is a
    good part of a small test's."""

    def __init__(self, app: Starlette, heap: SessionHeap) -> None:
        self.app = app
        self.heap = heap
        self.store: Store = app.state.store
        self.control: Control = app.state.control
        self._servers: dict[bool, MockServer] = {}  # by `tls`
        self._transport: InProcessTransport | None = None
        self._test: pytest.Item | None = None  # the test the mock was last made fresh for

    def server(self, *, tls: bool) -> MockServer:
        """The live server, over HTTPS with `tls`; started on first use."""
        handle = self._servers.get(tls)
        if handle is None:
            from mockserver.testing.live import LiveServer

            with self.heap.building():
                server = LiveServer(self.app, tls=tls).start()
            handle = self._servers[tls] = MockServer(server)
        return handle

    def transport(self) -> InProcessTransport:
        """The in-process transport (one event loop thread) that every `mock_client`
        borrows; started on first use."""
        if self._transport is None:
            from mockserver.testing.inprocess import InProcessTransport

            with self.heap.building():
                self._transport = InProcessTransport(self.app)
        return self._transport

    def fresh(self, request: pytest.FixtureRequest) -> None:
        """Reset the mock for the test, once, whichever of the fixtures it uses come first;
        load its scenarios; and fail it at its end if the server raised an unexpected error."""
        if request.node is self._test:
            return
        request.addfinalizer(self._finish)
        self._test = request.node
        self.control.reset()
        self.store.errors.clear()
        marker = request.node.get_closest_marker("mock_scenario")
        if marker is not None:
            for name in marker.args:
                refused = self._load(name)
                if refused is not None:  # the mock's lines, without a traceback
                    pytest.fail(str(refused), pytrace=False)

    def _load(self, name: str) -> ScenarioRefused | None:
        """Load a scenario of the `mock_scenario` marker; why the mock refused it, if it did
        (returned, not raised: failing in an `except` would print it twice)."""
        try:
            self.server(tls=False).load_scenario(name)
        except ScenarioRefused as refused:
            return refused
        return None

    def unused_rules(self) -> list[str]:
        """`scenario/rule` of every rule of the loaded scenarios that never fired."""
        loaded = self.control.scenarios()["data"]
        return [
            f"{scenario['name']}/{rule['name']}"
            for scenario in loaded
            for rule in scenario["rules"]
            if not rule["fired"]
        ]

    def journal_text(self, account: MockAccount | None = None) -> str:
        """The "mock journal" section: the latest JOURNAL_SHOWN API requests of the test (of
        its account, when it has one)."""
        from mockserver.testing.verification import journal_section

        journal = self.app.state.journal
        for _ in range(3):  # a request still running in another thread may add an entry
            try:
                entries = list(journal.entries())
                if account is not None:
                    entries = [entry for entry in entries if entry.account == account.id]
                break
            except RuntimeError:
                continue
        else:
            return "The journal could not be read while requests were running."
        shown = [
            {
                "seq": entry.seq,
                "method": entry.method,
                "path": entry.path,
                "query": entry.query,
                "status": entry.status,
                "rule": entry.rule,
                "explain": entry.explained(),
            }
            for entry in entries[-JOURNAL_SHOWN:]
        ]
        return journal_section(shown, len(entries))

    def _finish(self) -> None:
        self._test = None  # a test run again (a rerun plugin) is reset again
        if self.store.errors:
            trace = "".join(traceback.format_exception(self.store.errors[0]))
            pytest.fail(f"the mock server raised an unexpected error:\n{trace}", pytrace=False)

    def close(self) -> None:
        """Stop what serves the app, without waiting for the live servers (see `join`)."""
        for handle in self._servers.values():
            handle._close()
            handle._server.stop(wait=False)
        if self._transport is not None:
            self._transport.close()

    def join(self) -> None:
        """Stop the live servers, if `close` has not, and wait until they have."""
        for handle in self._servers.values():
            handle._server.stop()
        self.heap.thaw()


if TYPE_CHECKING:
    Session: TypeAlias = "_SessionMock | RemoteSession"  # the plugin's server, or a running one


@pytest.fixture(scope="session")
def _mock_session(request: pytest.FixtureRequest) -> Iterator[Session]:
    url = request.config.getoption("--mockserver-url")
    mock: Session
    if url:
        from mockserver.testing.remote_session import RemoteSession

        token = os.environ.get("MOCKSERVER_ADMIN_TOKEN") or None
        mock = RemoteSession(
            url, token, lambda server: MockServer(server, admin_token=token, shared=True)
        )
    else:
        heap = SessionHeap()
        with heap.building():
            app = _create_app(request.config)
        mock = _SessionMock(app, heap)
    request.config.stash[_SESSION] = mock
    # The servers' shutdown goes on while pytest reports, and is waited for at its very end,
    # before the process may exit.
    request.config.add_cleanup(mock.join)
    yield mock
    del request.config.stash[_SESSION]
    mock.close()


def _used_mock(item: pytest.Item) -> Session | None:
    """The session's mock if `item` used one of its fixtures, else None."""
    names = getattr(item, "fixturenames", ())
    if not {"mock_server", "mock_client", "mock_account"} & set(names):
        return None
    return item.config.stash.get(_SESSION, None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test that used the mock gets its "mock journal" section; with
    `--mock-strict-scenarios`, a passing one whose scenarios kept an unused rule fails."""
    report = yield
    mock = _used_mock(item)
    if mock is None or (report.when == "teardown" and report.passed):
        return report
    if report.when == "call" and item.config.getoption("--mock-strict-scenarios"):
        unused = mock.unused_rules()
        if unused:
            message = "Scenario rules that never fired: " + ", ".join(unused) + "."
            if report.passed:
                report.outcome = "failed"
                report.longrepr = message
            else:
                report.sections.append(("mock scenarios", message))
    if report.failed:
        account = item.stash.get(_ACCOUNT, None)
        report.sections.append(("mock journal", mock.journal_text(account)))
    return report


@pytest.fixture(scope="session")
def mock_app(_mock_session: Session) -> Starlette:
    """The session's mock app: frozen clock, the chosen seed and random seed (not with
    `--mockserver-url`: the app runs elsewhere)."""
    return _mock_session.app


@pytest.fixture
def mock_server(request: pytest.FixtureRequest, _mock_session: Session) -> MockServer:
    """The live mock (real HTTP on a free port), reset for this test; with
    `--mockserver-url`, the running server, shared, not reset."""
    options: dict[str, Any] = dict(getattr(request, "param", None) or {})
    marker = request.node.get_closest_marker("mock_server")
    if marker is not None:
        options.update(marker.kwargs)
    _mock_session.fresh(request)
    return _mock_session.server(tls=bool(options.get("tls")))


@pytest.fixture
def mock_account(request: pytest.FixtureRequest, _mock_session: Session) -> Iterator[MockAccount]:
    """This test's own account on the session's server, with a frozen clock of its own, named
    after the test's node id: its answers are the same whatever else runs on the server. Its
    clock, reset, snapshots, scenarios and journal are its own; nothing resets the server for
    it. Removed after the test."""
    from mockserver.testing.account import MockAccount, account_name

    if {"mock_server", "mock_client"} & set(request.fixturenames):
        _mock_session.fresh(request)  # their reset first, or it would remove the account
    server = _mock_session.server(tls=False)
    account = MockAccount.open(server, account_name(request.node.nodeid))
    request.node.stash[_ACCOUNT] = account  # the failed test's report shows its requests
    try:
        marker = request.node.get_closest_marker("mock_scenario")
        for name in marker.args if marker is not None else ():  # the test's scenarios: its own
            refused = _load_into(account, name)
            if refused is not None:  # the mock's lines, without a traceback
                pytest.fail(str(refused), pytrace=False)
        yield account
    finally:
        account.remove()


def _load_into(account: MockAccount, name: str) -> ScenarioRefused | None:
    """Load a `mock_scenario` marker's scenario into the test's account; why the mock refused
    it, if it did."""
    try:
        account.load_scenario(name)
    except ScenarioRefused as refused:
        return refused
    return None


@pytest.fixture
def mock_client(request: pytest.FixtureRequest, _mock_session: Session) -> Iterator[MockClient]:
    """An in-process httpx client on the mock (no socket), authenticated with the full key;
    paths start at the root, e.g. `mock_client.get("/v1/whoami")`. It has the request
    assertions of `mock_server`. With `--mockserver-url`, the same over the socket."""
    _mock_session.fresh(request)
    headers = {"Authorization": f"Bearer {FULL_KEY}"}
    if not isinstance(_mock_session, _SessionMock):
        with _mock_session.client(headers) as remote:
            yield remote
        return
    transport = _mock_session.transport()
    from mockserver.testing.mock_client import MockClient

    client = cast(
        "MockClient",
        transport.client(base_url="http://mockserver", cls=MockClient, headers=headers),
    )
    with client:
        yield client
    transport.cancel_tasks()  # what the app left running ends with the test
