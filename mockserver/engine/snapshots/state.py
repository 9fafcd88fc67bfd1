"""What a snapshot holds of a sandbox, and putting it back.

Everything a sandbox has become since its seed: the clock, credentials and accounts, every
world (`worlds`), the id streams, every timer (locks, exports, webhook attempts, scenario
timelines), OAuth codes and tokens, rate windows, idempotency records, webhook endpoints,
queues and deliveries, the loaded scenarios with their counters, and the request journal. Not
in it: the seed and what is made from it alone (written as references, see `worlds`), caches
(rendered pages and JSON), work in flight (a snapshot waits for it), and the server's settings.

`read` builds every object from the file before anything changes; `apply` then swaps them in.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Any

from mockserver.core.containers import DictOf, ListOf, Obj, Opt, Tuple
from mockserver.core.errors import ApiError
from mockserver.core.kinds import MAX_INT, Invalid, Json, Kind, Reader, Str, Writer
from mockserver.domain.accounts import account_with
from mockserver.domain.models import Account
from mockserver.domain.store import Store
from mockserver.engine.accounts.sandboxes import AccountSandbox
from mockserver.engine.accounts.spec import parse_spec
from mockserver.engine.parts import Parts

# The modules that declare the records a file may hold (importing them registers them).
from mockserver.engine.snapshots import api_records, worlds  # noqa: F401
from mockserver.engine.snapshots.kinds import Rec
from mockserver.engine.snapshots.records import COUNT, ENVIRONMENT, MOMENT, STREAM, TEXT
from mockserver.engine.snapshots.timers import Timers
from mockserver.engine.snapshots.traffic import ANONYMOUS, WINDOWS

WORLD_KEY = Tuple(TEXT, ENVIRONMENT)


class _Accounts(DictOf):
    """The accounts by id; read before the worlds, which name theirs (`Loading.accounts`)."""

    def __init__(self) -> None:
        super().__init__(TEXT, Rec("Account"))

    def decode(self, data: Any, into: Reader) -> Any:
        accounts: dict[str, Account] = super().decode(data, into)
        for account_id, account in accounts.items():
            if account.id != account_id:
                raise Invalid(f"account {account.id!r} is listed as {account_id!r}")
        into.context.accounts = accounts
        return accounts


class _AccountSandboxes(Kind):
    """The sandboxes of the accounts made through the control plane: each as its creation
    (`spec`, id, keys, the seed of its id streams) and its own state, in this same format
    (without journal entries: the server's journal holds them, marked with the account)."""

    def encode(self, value: Any, out: Writer) -> Any:
        return [
            {
                "id": tenant.id,
                "keys": list(tenant.keys()),
                "spec": tenant.spec.as_json(),
                "random_seed": tenant.random_seed,
                "state": capture(tenant.sandbox, journal=False),
            }
            for tenant in value
        ]

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not list:
            raise Invalid("must be a list of account sandboxes")
        loading: Loading = into.context
        made: list[tuple[AccountSandbox[Any], dict[str, Any]]] = []
        seen: set[str] = set()
        for index, item in enumerate(data):
            try:
                tenant = _tenant(loading.sandbox, item)
                if tenant.id in seen or tenant.id in loading.accounts:
                    raise Invalid(f"account {tenant.id!r} is in the file twice")
                seen.add(tenant.id)
                inner = read(tenant.sandbox, item["state"])
            except Invalid as error:
                error.path.append(index)
                raise
            made.append((tenant, inner))
        return made

    def schema(self) -> dict[str, Any]:
        return {
            "type": "array",
            "description": self.__doc__ or "",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "keys": {"type": "array", "items": {"type": "string"}},
                    "spec": {"type": "object"},
                    "random_seed": {"type": "integer", "minimum": 0, "maximum": MAX_INT},
                    "state": {"type": "object", "description": "A `state` of this format."},
                },
                "required": ["id", "keys", "spec", "random_seed", "state"],
                "additionalProperties": False,
            },
        }


def _tenant(server: Parts, item: Any) -> AccountSandbox[Any]:
    """An account sandbox built, not yet registered, from its entry in a file."""
    fields = {"id", "keys", "spec", "random_seed", "state"}
    if type(item) is not dict or item.keys() != fields:
        raise Invalid(f"must be an object of {', '.join(sorted(fields))}")
    account_id, keys, raw_spec, random_seed = (
        item["id"],
        item["keys"],
        item["spec"],
        item["random_seed"],
    )
    if type(account_id) is not str or not 0 < len(account_id) <= 64:
        raise Invalid("'id' must be an account id")
    if type(keys) is not list or len(keys) != 2 or any(type(k) is not str for k in keys):
        raise Invalid("'keys' must be the account's full and read-only keys")
    if type(random_seed) is not int or not 0 <= random_seed <= MAX_INT:
        raise Invalid(f"'random_seed' must be a whole number from 0 to {MAX_INT}")
    if type(raw_spec) is not dict:
        raise Invalid("'spec' must be an account's creation body")
    try:
        spec = parse_spec({k: v for k, v in raw_spec.items() if v is not None}, 0.0)
    except ApiError as error:
        raise Invalid(f"'spec': {error.message}") from None
    tenants = server.tenants
    assert tenants is not None
    made = account_with(account_id, spec.name, spec.region, keys[0], keys[1])
    return tenants.build(spec, made, random_seed)


STATE = Obj(
    {
        "clock": Obj(
            {"now": MOMENT, "frozen_at": Opt(MOMENT), "mode": Str(("real", "frozen"))},
            "The mock clock: its time, and where it stands still if frozen.",
        ),
        "accounts": _Accounts(),
        "keys": DictOf(TEXT, Rec("ApiKey")),
        "account_ids": STREAM,
        "request_ids": STREAM,
        "worlds": DictOf(WORLD_KEY, Rec("World")),
        "export_worlds": DictOf(TEXT, Rec("World")),
        "oauth": Obj(
            {
                "clients": DictOf(TEXT, Rec("OAuthClient")),
                "codes": DictOf(TEXT, Rec("AuthorizationCode"), OrderedDict),
                "tokens": DictOf(TEXT, Rec("AccessToken"), OrderedDict),
                "streams": DictOf(TEXT, STREAM),
                "sweep_at": COUNT,
            }
        ),
        "rate_limits": Obj({"windows": WINDOWS, "anonymous": ANONYMOUS, "sweep_above": COUNT}),
        "idempotency": Obj(
            {
                "generation": COUNT,
                "records": DictOf(TEXT, Rec("Record")),
                "kept": DictOf(TEXT, ListOf(Rec("Record"), deque)),
            }
        ),
        "webhooks": Obj(
            {
                "books": DictOf(WORLD_KEY, Rec("WebhookBook")),
                "journal": Rec("DeliveryJournal"),
                "generation": Rec("Generation"),
                "delayed": ListOf(Tuple(TEXT, COUNT), set, ordered=True),
            }
        ),
        "scenarios": Obj(
            {
                "loaded": ListOf(Rec("Loaded")),
                "pending_webhooks": ListOf(Json()),
                "timeline_errors": ListOf(TEXT),
            }
        ),
        "scheduler": Obj({"order": COUNT, "timers": Timers()}),
        "journal": Obj({"seq": COUNT, "entries": ListOf(Rec("Entry"))}),
        "account_sandboxes": _AccountSandboxes(),
    },
    "Everything the sandbox has become since its seed.",
)


def capture(sandbox: Parts, *, journal: bool = True) -> dict[str, Any]:
    """The sandbox's state as JSON values (call with no background work running); `journal`:
    with its journal entries (an account's, inside the server's state: without)."""
    store, webhooks, scenarios = sandbox.store, sandbox.webhooks, sandbox.scenarios
    oauth = store.oauth
    timers, order = store.scheduler.saved()
    now, frozen_at, mode = store.clock.saved()
    limits, kept = store.rate_limits, store.idempotency
    seq, entries = sandbox.journal.saved() if journal else (0, [])
    value = {
        "clock": {"now": now, "frozen_at": frozen_at, "mode": mode},
        "accounts": store.accounts,
        "keys": store.keys,
        "account_ids": sandbox.accounts.ids,
        "request_ids": store.request_ids,
        "worlds": store.worlds,
        "export_worlds": store.export_worlds,
        "oauth": {
            "clients": oauth.clients,
            "codes": oauth.codes,
            "tokens": oauth.tokens,
            "streams": oauth._ids,
            "sweep_at": oauth._sweep_at,
        },
        "rate_limits": {
            "windows": limits._windows,
            "anonymous": limits._anonymous,
            "sweep_above": limits._sweep_above,
        },
        "idempotency": {
            "generation": kept._generation,
            "records": kept._records,
            "kept": kept._kept,
        },
        "webhooks": {
            "books": webhooks.books,
            "journal": webhooks.journal,
            "generation": webhooks._generation,
            "delayed": webhooks._delayed,
        },
        "scenarios": {
            "loaded": scenarios.loaded,
            "pending_webhooks": scenarios.pending_webhooks,
            "timeline_errors": scenarios.timeline_errors,
        },
        "scheduler": {"order": order, "timers": timers},
        "journal": {"seq": seq, "entries": entries},
        "account_sandboxes": [] if sandbox.tenants is None else list(sandbox.tenants),
    }
    out = Writer()
    encoded: dict[str, Any] = STATE.encode(value, out)
    out.finish()
    return encoded


class Loading:
    """What records read from a file take from the sandbox it is read into."""

    def __init__(self, sandbox: Parts) -> None:
        self.sandbox = sandbox
        self.store: Store = sandbox.store
        self.accounts: dict[str, Account] = {}


def read(sandbox: Parts, data: Any) -> dict[str, Any]:
    """The state in a file's `state` as new objects for `sandbox`; Invalid saying where not."""
    loading = Loading(sandbox)
    into = Reader(loading)
    state: dict[str, Any] = STATE.decode(data, into)
    into.finish()
    _check(state, sandbox.account)
    _check_owner(sandbox, state)
    return state


def _check_owner(sandbox: Parts, state: dict[str, Any]) -> None:
    """The state is of the sandbox it is read into, by the accounts it holds (not only by the
    file's header, which anyone can paste): an account's holds that account alone, a
    server's the seed's accounts."""
    held = set(state["accounts"])
    if sandbox.account is not None:
        if held != {sandbox.account}:
            error = Invalid(
                f"an account's sandbox must hold that account alone ({sandbox.account!r}): "
                "an account's file restores only into the account it was taken from"
            )
            error.path.append("accounts")
            raise error
    elif held != set(sandbox.store.seed.accounts):
        error = Invalid(
            "a server's state holds the seed's accounts: this is not a file of a server "
            "(an account's file restores only into that account)"
        )
        error.path.append("accounts")
        raise error


def _check(state: dict[str, Any], own: str | None) -> None:
    """What must hold across parts of the state (`own`: the account of an account's
    sandbox, whose journal entries are marked with it)."""
    clock = state["clock"]
    if (clock["frozen_at"] is None) != (clock["mode"] == "real"):
        raise Invalid("a clock stands still ('frozen_at') exactly when its mode is frozen")
    accounts = state["accounts"]
    for key, world in state["worlds"].items():
        if key != (world.account.id, world.environment) or key[0] not in accounts:
            raise Invalid(f"world {list(key)} is not the world of an account of the file")
    for key_id, key in state["keys"].items():
        if key.key != key_id or key.account_id not in accounts:
            raise Invalid(f"key {key_id[:12]!r}... is not a key of an account of the file")
    for key, book in state["webhooks"]["books"].items():
        if key != (book.account_id, book.environment) or key[0] not in accounts:
            raise _at(
                Invalid(f"webhook book {list(key)} is not the book of a world of the file"),
                "webhooks",
                "books",
            )
    oauth = state["oauth"]
    for client_id, client in oauth["clients"].items():
        if client.client_id != client_id or client.account_id not in accounts:
            raise _at(
                Invalid(f"client {client_id!r} is not one of an account of the file"), "oauth"
            )
    for name in ("codes", "tokens"):
        for issued in oauth[name].values():
            if issued.client_id not in oauth["clients"] or issued.account_id not in accounts:
                message = f"an issued {name[:-1]} is not of a client and account of the file"
                raise _at(Invalid(message), "oauth", name)
    answering = {own, *(tenant.id for tenant, _ in state["account_sandboxes"])}
    for index, entry in enumerate(state["journal"]["entries"]):
        if entry.account is not None and entry.account not in answering:
            message = f"is of account {entry.account!r}, which has no sandbox in the file"
            raise _at(Invalid(message), "journal", "entries", index, "account")


def _at(error: Invalid, *path: str | int) -> Invalid:
    """`error` placed at `path` (from the state down)."""
    error.path.extend(reversed(path))
    return error


def apply(sandbox: Parts, state: dict[str, Any]) -> None:
    """Put what `read` built in place of the sandbox's state."""
    store, webhooks, scenarios = sandbox.store, sandbox.webhooks, sandbox.scenarios
    clock, scheduler = state["clock"], state["scheduler"]
    store.scheduler.restore(scheduler["timers"], scheduler["order"])  # cancels work in flight
    store.clock.restore((clock["now"], clock["frozen_at"], clock["mode"]))
    store.accounts = state["accounts"]
    store.keys = state["keys"]
    store.worlds = state["worlds"]
    store.kept = {}  # worlds a reset kept as built: the next first use builds them again
    store.export_worlds = state["export_worlds"]
    store.request_ids = state["request_ids"]
    sandbox.accounts.ids = state["account_ids"]
    oauth = state["oauth"]
    store.oauth.clients, store.oauth.codes, store.oauth.tokens = (
        oauth["clients"],
        oauth["codes"],
        oauth["tokens"],
    )
    store.oauth._ids, store.oauth._sweep_at = oauth["streams"], oauth["sweep_at"]
    limits = state["rate_limits"]
    store.rate_limits._windows = limits["windows"]
    store.rate_limits._anonymous = limits["anonymous"]
    store.rate_limits._sweep_above = limits["sweep_above"]
    kept = state["idempotency"]
    store.idempotency._generation = kept["generation"]
    store.idempotency._records = kept["records"]
    store.idempotency._kept = kept["kept"]
    hooks = state["webhooks"]
    webhooks.books, webhooks.journal = hooks["books"], hooks["journal"]
    webhooks._generation, webhooks._delayed = hooks["generation"], hooks["delayed"]
    loaded = state["scenarios"]
    scenarios.loaded = loaded["loaded"]
    scenarios.pending_webhooks = loaded["pending_webhooks"]
    scenarios.timeline_errors = loaded["timeline_errors"]
    scenarios._rearm()
    sandbox.journal.restore(state["journal"]["seq"], state["journal"]["entries"])
    if sandbox.tenants is not None:
        sandbox.tenants.replace([tenant for tenant, _ in state["account_sandboxes"]])
        for tenant, inner in state["account_sandboxes"]:
            apply(tenant.sandbox, inner)
