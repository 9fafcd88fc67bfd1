"""A sandbox's parts, as what is built before `SandboxState` and handed its parts sees them.

`SandboxState` (engine/sandbox.py) builds its parts and hands them on; the code that works on
all of a sandbox's state at once (snapshots, durability, the control facade) takes `Parts`, the
parts it reads, and never names `SandboxState`, which sits above it: so imports go one way.
"""

from __future__ import annotations

from typing import Any, Protocol

from mockserver.core.config import Settings
from mockserver.domain.accounts import AccountFactory
from mockserver.domain.store import Store
from mockserver.engine.accounts.sandboxes import AccountSandboxes
from mockserver.engine.journal import Journal
from mockserver.engine.named_snapshots import Snapshots
from mockserver.scenarios.engine import ScenarioEngine
from mockserver.webhooks.delivery import DeliveryEngine


class Parts(Protocol):
    """The parts of one sandbox (the server's or an account's)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...

    @property
    def scenarios(self) -> ScenarioEngine: ...

    @property
    def webhooks(self) -> DeliveryEngine: ...

    @property
    def journal(self) -> Journal: ...

    @property
    def accounts(self) -> AccountFactory:
        """What makes accounts in its store."""

    @property
    def snapshots(self) -> Snapshots:
        """Its named snapshots."""

    @property
    def account(self) -> str | None:
        """The one account of an account's sandbox; None: the server's."""

    @property
    def tenants(self) -> AccountSandboxes[Any] | None:
        """The server's account sandboxes (None in an account's)."""
