"""The server's account sandboxes: making, finding, routing to and removing them.

Every account made through `POST /_mock/accounts` gets a sandbox of its own (see the package's
docstring). The accounts middleware asks `owner` which sandbox answers an API request: the one
holding the bearer credential, or for a pre-signed export download (no credential) the one
holding the export. Accounts on the server clock (`FollowClock`) have their schedulers follow
the server's, so moving the server clock runs their timers in due order with its own; those
with a clock of their own are ticked with the server's (a real one moves by itself) and
waited for when the server waits for its webhook attempts. A reset of the server removes every
account sandbox, as it always forgot the accounts made since the seed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from mockserver.core.clock import Clock, FollowClock, FrozenClock, RealClock, parse_ts
from mockserver.core.config import DEFAULT_START_TIME
from mockserver.core.errors import Conflict, NotFound
from mockserver.core.ids import IdFactory
from mockserver.domain.accounts import AccountFactory, NewAccount, make_account
from mockserver.domain.auth import bearer_of
from mockserver.domain.store import Store
from mockserver.engine.accounts.spec import AccountSpec
from mockserver.engine.journal import Journal
from mockserver.engine.request import HeaderLines
from mockserver.webhooks.delivery import DeliveryEngine


class Held(Protocol):
    """What this module reads of an account's sandbox."""

    @property
    def store(self) -> Store: ...

    @property
    def webhooks(self) -> DeliveryEngine: ...


S = TypeVar("S", bound=Held)  # the sandbox type of the accounts (`SandboxState`)
Build = Callable[[NewAccount, int, Clock], S]  # an account's sandbox, on its seed and clock

_DOWNLOAD = re.compile(r"/v1/audit_logs/export/([^/]+)/download$")


@dataclass(slots=True)
class AccountSandbox(Generic[S]):
    """One account made through the control plane and the sandbox that holds it."""

    spec: AccountSpec
    made: NewAccount  # the account and its keys as created
    random_seed: int  # of its id streams
    sandbox: S

    @property
    def id(self) -> str:
        return self.made.account.id

    @property
    def own_clock(self) -> bool:
        return self.spec.clock is not None

    def keys(self) -> tuple[str, str]:
        return self.made.full.key, self.made.readonly.key


class AccountSandboxes(Generic[S]):
    """The account sandboxes of one server sandbox, by account id, name and key: made on the
    server's store (`accounts` makes accounts there), removed from its journal, their webhook
    attempts logged as its own are, their sandboxes made by `build`."""

    def __init__(
        self,
        store: Store,
        accounts: AccountFactory,
        webhooks: DeliveryEngine,
        journal: Journal,
        start_time: str | None,
        build: Build[S],
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._webhooks = webhooks
        self._journal = journal
        self._start_time = start_time
        self._build = build
        self.by_id: dict[str, AccountSandbox[S]] = {}
        self._by_key: dict[str, AccountSandbox[S]] = {}
        self._by_name: dict[str, AccountSandbox[S]] = {}
        store.reset_hooks.append(self.clear)

    def __len__(self) -> int:
        return len(self.by_id)

    def __iter__(self) -> Iterator[AccountSandbox[S]]:
        return iter(list(self.by_id.values()))

    # -- making and removing -------------------------------------------------------------

    def open(self, spec: AccountSpec) -> AccountSandbox[S]:
        """A new account sandbox for `spec`; 409 for a name in use."""
        if spec.name is not None and self.name_in_use(spec.name):
            raise Conflict(f"An account named '{spec.name[:64]}' exists already.", param="name")
        if spec.name is None:
            made = self._accounts.make(spec.region, None, self._taken)
            random_seed = self._store.random_seed
        else:
            random_seed = spec.identity_seed(self._store.random_seed)
            ids = IdFactory(random_seed, "account")
            made = make_account(ids, spec.region, spec.name, self._taken_anywhere)
        tenant = self.build(spec, made, random_seed)
        self._register(tenant)
        return tenant

    def build(self, spec: AccountSpec, made: NewAccount, random_seed: int) -> AccountSandbox[S]:
        """The sandbox of an account made already (`open`; a snapshot's), not registered."""
        sandbox = self._build(made, random_seed, self._clock(spec))
        return AccountSandbox(spec, made, random_seed, sandbox)

    def _register(self, tenant: AccountSandbox[S]) -> None:
        spec = tenant.spec
        self.by_id[tenant.id] = tenant
        for key in tenant.keys():
            self._by_key[key] = tenant
        if spec.name is not None:
            self._by_name[spec.name] = tenant
        tenant.sandbox.webhooks.durable_like(self._webhooks)
        scheduler = tenant.sandbox.store.scheduler
        server_scheduler = self._store.scheduler
        if spec.clock is None:
            server_scheduler.followers.append(scheduler)
        else:  # ticked (a real clock) and waited for (`settle`) with the server's
            server_scheduler.companions.append(scheduler)

    def _clock(self, spec: AccountSpec) -> Clock:
        if spec.clock is None:
            return FollowClock(self._store.clock)
        if spec.clock.mode == "frozen":
            return FrozenClock(spec.clock.start)
        server = self._store.clock
        clock = RealClock(server if isinstance(server, RealClock) else None)
        clock.start_at(spec.clock.start)
        return clock

    def remove(self, account_id: str) -> None:
        """Remove an account sandbox: its timers and work stop, its journal entries go."""
        tenant = self.by_id.pop(account_id)
        for key in tenant.keys():
            self._by_key.pop(key, None)
        if tenant.spec.name is not None:
            self._by_name.pop(tenant.spec.name, None)
        self._detach(tenant)
        self._journal.forget(account_id)

    def _detach(self, tenant: AccountSandbox[S]) -> None:
        scheduler = tenant.sandbox.store.scheduler
        server_scheduler = self._store.scheduler
        for group in (server_scheduler.followers, server_scheduler.companions):
            if scheduler in group:
                group.remove(scheduler)
        scheduler.clear()

    def clear(self) -> None:
        """Remove every account sandbox (a reset of the server)."""
        for tenant in self.by_id.values():
            self._detach(tenant)
        self.by_id, self._by_key, self._by_name = {}, {}, {}

    def replace(self, tenants: list[AccountSandbox[S]]) -> None:
        """Put these account sandboxes in place of every current one (a snapshot restored)."""
        self.clear()
        for tenant in tenants:
            self._register(tenant)

    def default_start(self) -> float:
        """Where an own frozen clock starts when its body names no time: the server clock's
        start time (its `--start-time`, else the default), whatever the server clock reads
        now."""
        start_time = self._start_time or DEFAULT_START_TIME
        return parse_ts(start_time)

    # -- finding -------------------------------------------------------------------------

    def get(self, account_id: str) -> AccountSandbox[S]:
        """The sandbox of account `account_id`: 404 for no account, 409 for one of the seed
        (it lives in the server's sandbox)."""
        tenant = self.by_id.get(account_id)
        if tenant is None:
            if account_id in self._store.accounts:
                raise Conflict(
                    f"Account '{account_id}' comes from the seed and has no sandbox of its own; "
                    "make one with POST /_mock/accounts.",
                    param="account",
                )
            raise NotFound.resource("account", account_id)
        return tenant

    def name_in_use(self, name: str) -> bool:
        return name in self._by_name or any(
            account.name == name for account in self._store.accounts.values()
        )

    def _taken(self, ident: str) -> bool:
        """An id or key an account sandbox holds."""
        return ident in self.by_id or ident in self._by_key

    def _taken_anywhere(self, ident: str) -> bool:
        store = self._store
        return self._taken(ident) or ident in store.accounts or ident in store.keys

    def owner(self, headers: HeaderLines, path: str) -> S | None:
        """The account sandbox that answers a request with these headers to `path`, or None
        (the server)."""
        if not self.by_id:
            return None
        token = bearer_of(headers)
        if token is not None:
            tenant = self._by_key.get(token)
            return None if tenant is None else tenant.sandbox
        found = _DOWNLOAD.search(path)
        if found is not None:
            export_id = found.group(1)
            for tenant in self.by_id.values():
                if export_id in tenant.sandbox.store.export_worlds:
                    return tenant.sandbox
        return None
