"""Fresh isolated accounts for parallel tests (`POST /_mock/accounts`).

A new account follows the default seed's pattern: two users (one with every permission, one
read-only) and a full and a read-only sandbox key owned by them, in an empty sandbox. Its id,
keys and users come from a seeded stream of the store, so the same sequence of calls gives the
same accounts; a reset forgets them with everything else.
"""

from __future__ import annotations

from collections.abc import Callable
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
        """A new account with default region `region`, its users and two sandbox keys, in the
        store."""
        made = self.make(region, name, lambda ident: False)
        self.store.accounts[made.account.id] = made.account
        self.store.keys[made.full.key] = made.full
        self.store.keys[made.readonly.key] = made.readonly
        return made

    def make(self, region: str, name: str | None, taken: Callable[[str], bool]) -> NewAccount:
        """A new account from this factory's stream, not yet in any store; never an id or key
        the store or `taken` has."""

        def held(ident: str) -> bool:
            return ident in self.store.accounts or ident in self.store.keys or taken(ident)

        return make_account(self.ids, region, name, held)


def make_account(
    ids: IdFactory, region: str, name: str | None, taken: Callable[[str], bool]
) -> NewAccount:
    """An account with default region `region`, its two users (one with every permission, one
    read-only) and a full and a read-only sandbox key, drawn from `ids`: ids and keys `taken`
    says are in use are skipped (a seed saved from a sandbox, `GET /_mock/seed`, holds the
    ones this stream made there)."""
    account_id = ids.new("acct_")
    while taken(account_id):
        account_id = ids.new("acct_")

    def new_key() -> str:
        key = ids.new("sk_test_")
        while taken(key):
            key = ids.new("sk_test_")
        return key

    full_key = new_key()
    return account_with(account_id, name, region, full_key, new_key())


def account_with(
    account_id: str, name: str | None, region: str, full_key: str, readonly_key: str
) -> NewAccount:
    """The account `account_id` with its two users and these two keys (what `make_account`
    draws; what a snapshot names)."""
    domain = f"{account_id.removeprefix('acct_').lower()}.example"
    admin = User(f"admin@{domain}", "Account Admin", SCOPES)
    viewer = User(f"viewer@{domain}", "Account Viewer", READ_SCOPES)
    account = Account(account_id, name or f"Account {account_id}", region, (admin, viewer))
    full = ApiKey(
        key=full_key,
        account_id=account_id,
        environment="sandbox",
        scopes=frozenset(SCOPES),
        owner=admin.email,
    )
    readonly = ApiKey(
        key=readonly_key,
        account_id=account_id,
        environment="sandbox",
        scopes=frozenset(READ_SCOPES),
        owner=viewer.email,
    )
    return NewAccount(account, full, readonly)
