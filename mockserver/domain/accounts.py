"""Fresh isolated accounts for parallel tests (`POST /_mock/accounts`).

A new account follows the default seed's pattern: two users (one with every permission, one
read-only) and a full and a read-only sandbox key owned by them, in an empty sandbox. Its id,
keys and users come from a seeded stream of the store, so the same sequence of calls gives the
same accounts; a reset forgets them with everything else.
"""

from __future__ import annotations

from dataclasses import dataclass

from mockserver.core.ids import IdFactory
from mockserver.domain.models import READ_SCOPES, SCOPES, Account, ApiKey, User
from mockserver.domain.store import Store

NAME_MAX = 200


@dataclass(frozen=True, slots=True)
class NewAccount:
    account: Account
    full: ApiKey
    readonly: ApiKey


class AccountFactory:
    """Opens accounts on a store; its id stream starts again at every reset."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.ids = IdFactory(store.random_seed, "accounts")
        store.reset_hooks.append(self._restart)

    def _restart(self) -> None:
        self.ids = IdFactory(self.store.random_seed, "accounts")

    def open(self, region: str, name: str | None) -> NewAccount:
        """A new account with default region `region`, its users and two sandbox keys."""
        account_id = self.ids.new("acct_")
        while account_id in self.store.accounts:  # never a seeded id (see _new_key)
            account_id = self.ids.new("acct_")
        domain = f"{account_id.removeprefix('acct_').lower()}.example"
        admin = User(f"admin@{domain}", "Account Admin", SCOPES)
        viewer = User(f"viewer@{domain}", "Account Viewer", READ_SCOPES)
        account = Account(account_id, name or f"Account {account_id}", region, (admin, viewer))
        full = ApiKey(
            key=self._new_key(),
            account_id=account_id,
            environment="sandbox",
            scopes=frozenset(SCOPES),
            owner=admin.email,
        )
        readonly = ApiKey(
            key=self._new_key(),
            account_id=account_id,
            environment="sandbox",
            scopes=frozenset(READ_SCOPES),
            owner=viewer.email,
        )
        self.store.accounts[account_id] = account
        self.store.keys[full.key] = full
        self.store.keys[readonly.key] = readonly
        return NewAccount(account, full, readonly)

    def _new_key(self) -> str:
        """A sandbox key from the stream, never a seeded one: a seed saved from a sandbox
        (`GET /_mock/seed`) holds the keys of the accounts this stream made there."""
        key = self.ids.new("sk_test_")
        while key in self.store.keys:
            key = self.ids.new("sk_test_")
        return key
