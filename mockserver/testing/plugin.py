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
frame of the plugin: `load_scenario` raises `ScenarioRefused` (its frames hidden from pytest's
traceback), and the marker fails the test's setup with the lines alone.

Both fixtures assert what the client sent (`assert_requested`, `assert_not_requested`,
`assert_requested_in_order`: testing/verification.py). A failed test that used one gets a
"mock journal" report section: its API requests, with `explain` under each error answer.
`--mock-strict-scenarios` fails a test whose loaded scenarios (the server's, or its account's)
kept a rule that never fired. A `mock_scenario` file is found from the test file's folder, then
the rootdir.

Errors raised inside the server while a test runs fail that test with their traceback.

Every pytest session of an environment with mockserver installed imports this module, whether
or not it uses a fixture, so it holds the hooks and the fixtures and imports nothing heavy. The
session fixture imports what opens the session's mock when a test first uses one: the app with
what serves it (testing/session.py), or, with `--mockserver-url`, a running server's client
(testing/remote_session.py), which needs no app. The app's modules are imported, as the app is
built, with the cyclic collector paused (testing/session_heap.py, which imports only `gc`). The
per-test fixtures call that session's methods. (tests/e2e/test_plugin_import.py keeps the
import cheap.)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import pytest

from mockserver.core.config import Settings
from mockserver.testing.session_heap import SessionHeap

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from mockserver.testing.account import MockAccount
    from mockserver.testing.mock_client import MockClient
    from mockserver.testing.remote_session import RemoteSession
    from mockserver.testing.server import MockServer
    from mockserver.testing.session import LocalSession

    Session: TypeAlias = "LocalSession | RemoteSession"  # the plugin's server, or a running one

_DEFAULTS = Settings()  # the options' defaults are the settings'
_SESSION = pytest.StashKey["Session"]()
_ACCOUNT = pytest.StashKey["MockAccount"]()  # a test's account, for its report


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


@pytest.fixture(scope="session")
def _mock_session(request: pytest.FixtureRequest) -> Iterator[Session]:
    url = request.config.getoption("--mockserver-url")
    mock: Session
    # What each kind of session needs is imported here, at its first use: the plugin's own
    # import stays cheap, and a running server's session imports no app.
    if url:
        from mockserver.testing.remote_session import RemoteSession

        mock = RemoteSession(url, os.environ.get("MOCKSERVER_ADMIN_TOKEN") or None)
    else:
        # The app's modules are made with the collector paused and frozen, as the app is.
        heap = SessionHeap()
        with heap.building():
            from mockserver.testing.session import LocalSession

            mock = LocalSession.build(request.config, heap)
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
    account = item.stash.get(_ACCOUNT, None)
    if report.when == "call" and item.config.getoption("--mock-strict-scenarios"):
        unused = mock.unused_rules()
        if account is not None:  # the test's account has scenarios of its own
            unused += [f"{account.id}: {rule}" for rule in account.unused_rules()]
        if unused:
            message = "Scenario rules that never fired: " + ", ".join(unused) + "."
            if report.passed:
                report.outcome = "failed"
                report.longrepr = message
            else:
                report.sections.append(("mock scenarios", message))
    if report.failed:
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
    if {"mock_server", "mock_client"} & set(request.fixturenames):
        _mock_session.fresh(request)  # their reset first, or it would remove the account
    account = _mock_session.account(request.node.nodeid)
    request.node.stash[_ACCOUNT] = account  # the failed test's report shows its requests
    try:
        account._load_marked(request.node)  # the test's scenarios: its own
        yield account
    finally:
        account.remove()


@pytest.fixture
def mock_client(request: pytest.FixtureRequest, _mock_session: Session) -> Iterator[MockClient]:
    """An in-process httpx client on the mock (no socket), authenticated with the full key;
    paths start at the root, e.g. `mock_client.get("/v1/whoami")`. It has the request
    assertions of `mock_server`. With `--mockserver-url`, the same over the socket."""
    _mock_session.fresh(request)
    with _mock_session.client() as client:
        yield client
