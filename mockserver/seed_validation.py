"""Turn a parsed seed (plain dicts, lists and scalars) into `SeedData`, or raise `Invalid`.

Checks run in file order and stop at the first problem, so the error a user sees is the one
nearest the top of the file, and no half-valid seed is ever returned. `Invalid.at` names the
offending node as a path of keys and list indices; `mockserver.seeds` looks its YAML line up
only when something is wrong. Checks take the parent path and the key separately and build the
full path only when they fail: a 100k-document seed runs them millions of times.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from datetime import UTC, date, datetime
from typing import NoReturn
from urllib.parse import urlsplit

from mockserver.clock import parse_ts
from mockserver.domain.models import (
    DOCUMENT_STATUSES,
    ENVIRONMENTS,
    READ_SCOPES,
    REGIONS,
    SCOPES,
    TOKEN_LIFETIME,
    Account,
    ApiKey,
    Document,
    DocumentVersion,
    EnvironmentSeed,
    Limits,
    Member,
    OAuthClient,
    SeedData,
    User,
    Vault,
)

PathT = tuple[str | int, ...]
PathPart = str | int

SUPPORTED_VERSION = 1
MAX_VERSION = 1000  # each version is an object; a typo such as 10**9 must fail, not hang
MAX_SAFE_INT = 2**53  # metadata ints must survive JavaScript clients
# prefix -> (environment, default rate_limit, default burst); DESIGN.md section 8
KEY_PREFIXES = {"sk_test_": ("sandbox", 120, 200), "sk_live_": ("live", 600, 1000)}
SIGNED_STATUSES = frozenset({"signed", "locked"})

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+\Z")
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_ID_TAIL = re.compile(r"[A-Za-z0-9_]{1,100}\Z")


class Invalid(Exception):
    """One problem in a parsed seed; `message` is rendered, `at` is the node to report."""

    def __init__(self, path: PathT, message: str, *, at: PathT | None = None) -> None:
        where = render_path(path)
        self.message = f"{where}: {message}" if where else message
        self.at = path if at is None else at
        super().__init__(self.message)


def render_path(path: PathT) -> str:
    """`("accounts", 0, "keys", 2)` -> `accounts[0].keys[2]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else part
    return out


def fail(path: PathT, key: PathPart, message: str) -> NoReturn:
    raise Invalid((*path, key), message)


@dataclasses.dataclass(frozen=True, slots=True)
class Fields:
    """The keys one kind of mapping may have; unknown keys are errors, so typos surface."""

    required: frozenset[str]
    allowed: frozenset[str]

    @classmethod
    def of(cls, required: str, optional: str = "") -> Fields:
        return cls(frozenset(required.split()), frozenset((required + " " + optional).split()))

    def check(self, raw: object, path: PathT) -> dict[str, object]:
        """`raw` as a mapping that has every required key and no unknown one."""
        if type(raw) is not dict:
            raise Invalid(path, "must be a mapping")
        if not raw.keys() <= self.allowed:
            unknown = next(key for key in raw if key not in self.allowed)
            raise Invalid(path, f"unknown field '{unknown}'", at=(*path, str(unknown)))
        if not self.required <= raw.keys():
            missing = min(self.required - raw.keys())
            raise Invalid(path, f"missing required field '{missing}'")
        return raw


def text(value: object, path: PathT, key: PathPart, max_len: int = 0) -> str:
    """A non-empty string of at most `max_len` characters (0: no limit)."""
    if type(value) is not str:
        fail(path, key, "must be a string")
    if not value:
        fail(path, key, "must not be empty")
    if max_len and len(value) > max_len:
        fail(path, key, f"must be at most {max_len} characters (got {len(value)})")
    return value


def integer(value: object, path: PathT, key: PathPart, minimum: int) -> int:
    """An int of at least `minimum`; a YAML bool is not an int here."""
    if type(value) is not int:
        fail(path, key, "must be an integer")
    if value < minimum:
        fail(path, key, "must be a positive integer" if minimum == 1 else f"must be >= {minimum}")
    return value


def boolean(value: object, path: PathT, key: PathPart) -> bool:
    if type(value) is not bool:
        fail(path, key, "must be true or false")
    return value


def email(value: object, path: PathT, key: PathPart) -> str:
    if type(value) is not str or not _EMAIL.match(value):
        fail(path, key, f"invalid email {show(value)}")
    return value


def choice(value: object, path: PathT, key: PathPart, options: tuple[str, ...]) -> str:
    if type(value) is not str or value not in options:
        fail(path, key, f"unknown {key} {show(value)} (expected one of: {', '.join(options)})")
    return value


def prefixed_id(value: object, path: PathT, key: PathPart, prefix: str) -> str:
    """An id such as `vault_mock_us`: the prefix, then 1..100 letters, digits or underscores."""
    if type(value) is str and value.startswith(prefix) and _ID_TAIL.match(value, len(prefix)):
        return value
    fail(path, key, f"invalid id {show(value)}: expected '{prefix}' then letters, digits or '_'")


def timestamp(value: object, path: PathT, key: PathPart) -> int:
    """RFC 3339 as int Unix seconds; unquoted YAML timestamps (datetime, date) count too."""
    if type(value) is str:
        try:  # the common case, without parse_ts's normalising (same result when this parses)
            moment = datetime.fromisoformat(value)
            if moment.tzinfo is not None:
                return int(moment.timestamp())
        except ValueError:
            pass
        try:
            return int(parse_ts(value))
        except (ValueError, OverflowError):
            pass
    elif isinstance(value, datetime):
        return int((value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp())
    elif isinstance(value, date):
        return int(datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())
    fail(path, key, f"invalid timestamp {show(value)} (expected RFC 3339: 2025-06-01T10:00:00Z)")


def items(value: object, path: PathT, key: PathPart) -> list[object]:
    """An optional list: absent or null is empty."""
    if value is None:
        return []
    if type(value) is not list:
        fail(path, key, "must be a list")
    return value


def scopes(value: object, path: PathT, key: PathPart) -> tuple[str, ...]:
    """`all`, `read` or a list of known scopes, normalised to the order of models.SCOPES."""
    if value == "all":
        return SCOPES
    if value == "read":
        return READ_SCOPES
    if type(value) is not list:
        fail(path, key, "must be 'all', 'read' or a list of scopes")
    for index, scope in enumerate(value):
        if scope not in SCOPES:
            fail((*path, key), index, f"unknown scope {show(scope)}")
    return tuple(scope for scope in SCOPES if scope in value)


def redirect_uri(value: object, path: PathT, key: PathPart) -> str:
    """An absolute http(s) URL without a fragment (RFC 6749 section 3.1.2)."""
    try:
        parts = urlsplit(value) if type(value) is str else None
    except ValueError:
        parts = None
    if not parts or parts.scheme not in ("http", "https") or not parts.netloc:
        fail(path, key, f"invalid redirect URI {show(value)} (expected an http(s) URL)")
    if parts.fragment:
        fail(path, key, "a redirect URI must not have a fragment")
    return str(value)


def metadata(value: object, path: PathT, limits: Limits) -> dict[str, str | int | bool]:
    """Flat metadata: string keys, and str, safe-int or bool values (no floats, no nesting)."""
    if value is None:
        return {}
    if type(value) is not dict:
        fail(path, "metadata", "must be a mapping")
    path = (*path, "metadata")
    if len(value) > limits.metadata_keys:
        raise Invalid(path, f"at most {limits.metadata_keys} keys allowed (got {len(value)})")
    for key, item in value.items():
        if type(key) is not str or not 0 < len(key) <= limits.metadata_key_len:
            message = f"key {show(key)} must be 1..{limits.metadata_key_len} characters long"
            raise Invalid(path, message, at=(*path, str(key)))
        kind = type(item)
        if kind is str:
            if len(item) > limits.metadata_value_len:
                fail(path, key, f"must be at most {limits.metadata_value_len} characters")
        elif kind is int:
            if not -MAX_SAFE_INT < item < MAX_SAFE_INT:
                fail(path, key, "integer out of range (|n| must be < 2**53)")
        elif kind is not bool:
            fail(path, key, "must be a string, an integer or a boolean")
    return value


def limits(value: object, path: PathT) -> Limits:
    """Any subset of the fields of models.Limits, each a positive int."""
    if value is None:
        return Limits()
    names = " ".join(field.name for field in dataclasses.fields(Limits))
    raw = Fields.of("", names).check(value, path)
    return Limits(**{name: integer(raw[name], path, name, 1) for name in raw})


def _list(value: object) -> list[object]:
    return value if type(value) is list else []


def show(value: object) -> str:
    """A value as messages quote it: strings in single quotes, others as YAML spells them."""
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= 80 else f"'{value[:77]}...'"
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, dict | list):
        return "a mapping" if isinstance(value, dict) else "a list"
    return str(value)


SEED = Fields.of("version accounts", "limits")
ACCOUNT = Fields.of("id name default_region", "users keys oauth_clients environments")
USER = Fields.of("email name permissions")
KEY = Fields.of("key owner scopes", "revoked rate_limit burst")
CLIENT = Fields.of("client_id client_secret redirect_uris", "name token_lifetime")
ENVIRONMENT = Fields.of("", "vaults documents")
VAULT = Fields.of("id name region created_at", "lock_after members")
MEMBER = Fields.of("email role")
DOCUMENT = Fields.of(
    "id vault_id title status created_at sha256",
    "version metadata signers signed_at legal_hold",
)


def build_seed(raw: object, source: str) -> SeedData:
    """Validate a whole parsed seed file and build its typed objects; raise Invalid if bad."""
    return _SeedBuilder(source).build(raw)


class _SeedBuilder:
    """Walks one parsed seed in file order, remembering ids that must be unique file-wide."""

    def __init__(self, source: str) -> None:
        self.seed = SeedData(source=source)
        self.first_seen: dict[tuple[str, str], PathT] = {}
        self.raw: dict[str, object] = {}

    def claim(self, kind: str, ident: str, path: PathT, key: str) -> None:
        """Record `ident` as taken by the mapping at `path`, or fail if another took it."""
        first = self.first_seen.setdefault((kind, ident), path)
        if first is not path:
            where = render_path((*first, key))
            fail(path, key, f"duplicate {kind} '{ident}' (first at {where})")

    def vault_anywhere(self, vault_id: str) -> bool:
        """Whether any environment of the raw file lists `vault_id` (for a helpful error)."""
        for account in _list(self.raw.get("accounts")):
            environments = account.get("environments") if type(account) is dict else None
            for env in environments.values() if type(environments) is dict else ():
                vaults = _list(env.get("vaults") if type(env) is dict else None)
                if any(type(v) is dict and v.get("id") == vault_id for v in vaults):
                    return True
        return False

    def build(self, value: object) -> SeedData:
        raw = self.raw = SEED.check(value, ())
        if raw["version"] != SUPPORTED_VERSION or type(raw["version"]) is not int:
            fail((), "version", f"unsupported version {show(raw['version'])} (expected 1)")
        self.seed.limits = limits(raw.get("limits"), ("limits",))
        accounts = items(raw["accounts"], (), "accounts")
        if not accounts:
            fail((), "accounts", "must list at least one account")
        for index, account in enumerate(accounts):
            self.account(account, ("accounts", index))
        return self.seed

    def account(self, value: object, path: PathT) -> None:
        raw = ACCOUNT.check(value, path)
        account_id = prefixed_id(raw["id"], path, "id", "acct_")
        self.claim("account id", account_id, path, "id")
        name = text(raw["name"], path, "name", self.seed.limits.name_max)
        region = choice(raw["default_region"], path, "default_region", REGIONS)
        users: dict[str, User] = {}
        for index, item in enumerate(items(raw.get("users"), path, "users")):
            user = self.user(item, (*path, "users", index))
            if user.email in users:
                fail((*path, "users", index), "email", f"duplicate user '{user.email}'")
            users[user.email] = user
        self.seed.accounts[account_id] = Account(account_id, name, region, tuple(users.values()))
        for index, item in enumerate(items(raw.get("keys"), path, "keys")):
            self.key(item, (*path, "keys", index), account_id)
        for index, item in enumerate(items(raw.get("oauth_clients"), path, "oauth_clients")):
            self.client(item, (*path, "oauth_clients", index), account_id)
        environments = raw.get("environments")
        env_path = (*path, "environments")
        if environments is not None and type(environments) is not dict:
            raise Invalid(env_path, "must be a mapping")
        for name in environments or {}:
            if name not in ENVIRONMENTS:
                fail(env_path, str(name), "unknown environment (expected sandbox or live)")
        for environment in ENVIRONMENTS:  # every (account, environment) exists, maybe empty
            self.seed.environments[(account_id, environment)] = self.environment(
                (environments or {}).get(environment), (*env_path, environment)
            )

    def user(self, value: object, path: PathT) -> User:
        raw = USER.check(value, path)
        return User(
            email(raw["email"], path, "email"),
            text(raw["name"], path, "name", self.seed.limits.name_max),
            scopes(raw["permissions"], path, "permissions"),
        )

    def key(self, value: object, path: PathT, account_id: str) -> None:
        raw = KEY.check(value, path)
        key = text(raw["key"], path, "key")
        prefix = key[:8]
        if prefix not in KEY_PREFIXES or len(key) == len(prefix):
            fail(path, "key", f"invalid key '{key}': must start with 'sk_test_' or 'sk_live_'")
        environment, default_rate, default_burst = KEY_PREFIXES[prefix]
        self.claim("key", key, path, "key")
        owner = email(raw["owner"], path, "owner")
        granted = frozenset(scopes(raw["scopes"], path, "scopes"))
        revoked = raw.get("revoked")
        revoked = False if revoked is None else boolean(revoked, path, "revoked")
        rate = raw.get("rate_limit")
        rate = default_rate if rate is None else integer(rate, path, "rate_limit", 1)
        burst_value = raw.get("burst")
        if burst_value is None:
            burst = max(default_burst, rate)  # a raised rate_limit lifts the default burst
        else:
            burst = integer(burst_value, path, "burst", 1)
            if burst < rate:
                fail(path, "burst", f"must be >= rate_limit ({rate})")
        self.seed.keys[key] = ApiKey(
            key, account_id, environment, granted, owner, revoked, rate, burst
        )

    def client(self, value: object, path: PathT, account_id: str) -> None:
        raw = CLIENT.check(value, path)
        client_id = text(raw["client_id"], path, "client_id")
        self.claim("client_id", client_id, path, "client_id")
        secret = text(raw["client_secret"], path, "client_secret")
        name = raw.get("name")
        name = "" if name is None else text(name, path, "name", self.seed.limits.name_max)
        uris = items(raw["redirect_uris"], path, "redirect_uris")
        if not uris:
            fail(path, "redirect_uris", "must list at least one redirect URI")
        uris_path = (*path, "redirect_uris")
        redirect_uris = tuple(redirect_uri(uri, uris_path, i) for i, uri in enumerate(uris))
        lifetime = raw.get("token_lifetime")
        lifetime = (
            TOKEN_LIFETIME if lifetime is None else integer(lifetime, path, "token_lifetime", 1)
        )
        self.seed.oauth_clients[client_id] = OAuthClient(
            client_id, secret, account_id, redirect_uris, name, lifetime
        )

    def environment(self, value: object, path: PathT) -> EnvironmentSeed:
        env = EnvironmentSeed()
        if value is None:
            return env
        raw = ENVIRONMENT.check(value, path)
        vaults: dict[str, Vault] = {}
        for index, item in enumerate(items(raw.get("vaults"), path, "vaults")):
            vault = self.vault(item, (*path, "vaults", index))
            vaults[vault.id] = vault
        documents = items(raw.get("documents"), path, "documents")
        env.documents = [
            self.document(item, (*path, "documents", index), vaults)
            for index, item in enumerate(documents)
        ]
        env.vaults = sorted(vaults.values(), key=lambda v: (v.created_at, v.id))
        env.documents.sort(key=lambda d: (d.created_at, d.id))
        return env

    def vault(self, value: object, path: PathT) -> Vault:
        raw = VAULT.check(value, path)
        vault_id = prefixed_id(raw["id"], path, "id", "vault_")
        self.claim("vault id", vault_id, path, "id")
        lock_after = raw.get("lock_after")
        members: dict[str, Member] = {}
        for index, item in enumerate(items(raw.get("members"), path, "members")):
            if index == self.seed.limits.members_max:
                fail(path, "members", f"at most {index} members allowed")
            at = (*path, "members", index)
            member = MEMBER.check(item, at)
            address = email(member["email"], at, "email")
            if address in members:
                fail(at, "email", f"duplicate member '{address}'")
            members[address] = Member(address, text(member["role"], at, "role"))
        return Vault(
            id=vault_id,
            name=text(raw["name"], path, "name", self.seed.limits.name_max),
            region=choice(raw["region"], path, "region", REGIONS),
            created_at=timestamp(raw["created_at"], path, "created_at"),
            members=list(members.values()),
            lock_after=300 if lock_after is None else integer(lock_after, path, "lock_after", 0),
        )

    def document(self, value: object, path: PathT, vaults: dict[str, Vault]) -> Document:
        raw = DOCUMENT.check(value, path)
        doc_id = prefixed_id(raw["id"], path, "id", "doc_")
        self.claim("document id", doc_id, path, "id")
        vault_id = raw["vault_id"]
        vault = vaults.get(vault_id) if type(vault_id) is str else None
        if vault is None:
            elsewhere = type(vault_id) is str and self.vault_anywhere(vault_id)
            problem = "belongs to another account or environment" if elsewhere else "no such vault"
            fail(path, "vault_id", f"{problem}: {show(vault_id)}")
        title = text(raw["title"], path, "title", self.seed.limits.title_max)
        status = choice(raw["status"], path, "status", DOCUMENT_STATUSES)
        created_at = timestamp(raw["created_at"], path, "created_at")
        if created_at < vault.created_at:
            fail(path, "created_at", f"is before the created_at of vault '{vault.id}'")
        sha256 = raw["sha256"]
        if type(sha256) is not str or not _SHA256.match(sha256):
            fail(path, "sha256", "must be 64 lowercase hex characters")
        version = raw.get("version")
        version = 1 if version is None else integer(version, path, "version", 1)
        if version > MAX_VERSION:
            fail(path, "version", f"must be at most {MAX_VERSION}")
        meta = metadata(raw.get("metadata"), path, self.seed.limits)
        signers_path = (*path, "signers")
        signers = [
            email(signer, signers_path, index)
            for index, signer in enumerate(items(raw.get("signers"), path, "signers"))
        ]
        signed = status in SIGNED_STATUSES
        if signed and not signers:
            fail(path, "signers", f"a {status} document needs at least one signer")
        if signers and not signed:
            fail(path, "signers", f"must be empty for a {status} document")
        signed_at = raw.get("signed_at")
        if signed_at is not None:
            if not signed:
                fail(path, "signed_at", f"not allowed for a {status} document")
            signed_at = timestamp(signed_at, path, "signed_at")
            if signed_at < created_at:
                fail(path, "signed_at", "is before the document's created_at")
        elif signed:
            raise Invalid(path, f"missing required field 'signed_at' (status is {status})")
        legal_hold = raw.get("legal_hold")
        legal_hold = False if legal_hold is None else boolean(legal_hold, path, "legal_hold")
        versions = [
            DocumentVersion(v, hashlib.sha256(f"{doc_id}:{v}".encode()).hexdigest(), created_at)
            for v in range(1, version)
        ]
        versions.append(DocumentVersion(version, sha256, created_at))
        return Document(
            id=doc_id,
            vault_id=vault.id,
            region=vault.region,
            title=title,
            status=status,
            created_at=created_at,
            sha256=sha256,
            metadata=dict(meta),
            version=version,
            versions=versions,
            signers=signers,
            legal_hold=legal_hold,
            signed_at=signed_at,
        )
