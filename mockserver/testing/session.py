"""The session's own mock, for the pytest plugin: the app, what serves it, and the reset that
starts every test using it.

The plugin imports this module when a session first uses a fixture (plugin.py), so the app,
Starlette and httpx are imported here, at the top, and not by every pytest run; uvicorn and the
live server (testing/live.py) when the session first serves the app over a socket. This
module is imported, and the session's mock built, with the cyclic collector paused, and what is
alive then is frozen until the session ends (session_heap.py). `--mockserver-url` uses a
running server instead (`RemoteSession`, remote_session.py: the same methods, without
importing the app).
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

import pytest

from mockserver.core.config import Settings
from mockserver.testing.account import MockAccount, account_name
from mockserver.testing.controls import unused_rules
from mockserver.testing.inprocess import InProcessTransport
from mockserver.testing.mock_client import MockClient
from mockserver.testing.server import FULL_KEY, MockServer, load_marked
from mockserver.testing.verification import JOURNAL_SHOWN, journal_section
from mockserver.web.app import create_app

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from mockserver.domain.store import Store
    from mockserver.engine.control import Control
    from mockserver.testing.session_heap import SessionHeap


def _create_app(config: pytest.Config) -> Starlette:
    """The session's mock app: frozen clock, the chosen seed and random seed."""
    settings = Settings(
        seed_path=config.getoption("--mock-seed"),
        clock_mode="frozen",
        random_seed=config.getoption("--mock-random-seed"),
        idempotency_records=config.getoption("--mock-idempotency-records"),
    )
    return create_app(settings)


class LocalSession:
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

    @classmethod
    def build(cls, config: pytest.Config, heap: SessionHeap) -> LocalSession:
        """The session's mock, built from the options. The plugin imports this module and
        calls this within `heap.building()`: the app's modules and the app itself are made
        with the collector paused, and frozen once made."""
        return cls(_create_app(config), heap)

    def server(self, *, tls: bool) -> MockServer:
        """The live server, over HTTPS with `tls`; started on first use."""
        handle = self._servers.get(tls)
        if handle is None:
            with self.heap.building():
                # uvicorn and what serves the app over a socket: imported by the session's
                # first live server (`mock_server`, a scenario, an account), so a session of
                # `mock_client` only does not pay for them.
                from mockserver.testing.live import LiveServer

                server = LiveServer(self.app, tls=tls).start()
            handle = self._servers[tls] = MockServer(server)
        return handle

    def transport(self) -> InProcessTransport:
        """The in-process transport (one event loop thread) that every `mock_client`
        borrows; started on first use."""
        if self._transport is None:
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
        # through the live server, started only for a test that has scenarios
        load_marked(lambda name: self.server(tls=False).load_scenario(name), request.node)

    def account(self, node_id: str) -> MockAccount:
        """`mock_account`: the test's own account on the live server."""
        return MockAccount.open(self.server(tls=False), account_name(node_id))

    @contextlib.contextmanager
    def client(self) -> Iterator[MockClient]:
        """`mock_client`: an in-process client with the full key, on the session's transport;
        what the app left running ends with it."""
        transport = self.transport()
        headers = {"Authorization": f"Bearer {FULL_KEY}"}
        client = cast(
            "MockClient",
            transport.client(base_url="http://mockserver", cls=MockClient, headers=headers),
        )
        with client:
            yield client
        transport.cancel_tasks()

    def unused_rules(self) -> list[str]:
        """`scenario/rule` of every rule of the loaded scenarios that never fired."""
        return unused_rules(self.control.scenarios()["data"])

    def journal_text(self, account: MockAccount | None = None) -> str:
        """The "mock journal" section: the latest JOURNAL_SHOWN API requests of the test (of
        its account, when it has one)."""
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
