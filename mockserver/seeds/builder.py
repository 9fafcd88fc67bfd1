"""Turn a parsed seed (plain dicts, lists and scalars) into `SeedData`, or raise `Invalid`.

The builder walks the seed in file order, checks each node with `seed_validation`, and ties the
records together: ids unique file-wide, documents in vaults and workflows on documents of the
same (account, environment), every time at or before the reference time. A bad record (an
account, user, key, client, vault, document or workflow) is kept as a problem (its first) and
skipped, and the walk goes on, so one run reports every bad record; a record that only refers
to a skipped one is not reported again. No half-valid seed is ever returned: the first problem
is raised with the others. The few rules that need a whole list (every in_review document has
an in_progress workflow) run as soon as that list has been read, and only when none of it was
skipped.
"""

from __future__ import annotations

import hashlib
import re
from typing import NoReturn

from mockserver.core.clock import format_ts, parse_ts
from mockserver.core.config import DEFAULT_START_TIME
from mockserver.domain.models import (
    DOCUMENT_STATUSES,
    ENVIRONMENTS,
    LOCK_AFTER,
    REGIONS,
    TOKEN_LIFETIME,
    Account,
    ApiKey,
    Document,
    DocumentVersion,
    EndpointSeed,
    EnvironmentSeed,
    Member,
    OAuthClient,
    SeedData,
    User,
    Vault,
    Workflow,
)
from mockserver.domain.webhook_rules import ENDPOINTS_MAX, SECRET_PREFIX
from mockserver.seeds.validation import (
    ACCOUNT,
    CLIENT,
    DOCUMENT,
    ENDPOINT,
    ENVIRONMENT,
    KEY,
    MEMBER,
    SEED,
    SIGNED_STATUSES,
    USER,
    VAULT,
    Invalid,
    PathT,
    Reference,
    boolean,
    choice,
    email,
    event_types,
    fail,
    fresh,
    integer,
    items,
    kept_metadata,
    limits,
    metadata,
    prefixed_id,
    redirect_uri,
    render_path,
    scopes,
    show,
    text,
    timestamp,
    webhook_url,
)
from mockserver.seeds.workflows import RefersToSkipped, read_workflows

SUPPORTED_VERSION = 1
MAX_VERSION = 1000  # each version is an object; a typo such as 10**9 must fail, not hang
# prefix -> (environment, default rate_limit, default burst); docs/reference/api.md, Rate limits
KEY_PREFIXES = {"sk_test_": ("sandbox", 120, 200), "sk_live_": ("live", 600, 1000)}
DEFAULT_REFERENCE_TIME = int(parse_ts(DEFAULT_START_TIME))

_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


def build_seed(raw: object, source: str) -> SeedData:
    """Validate a whole parsed seed file and build its typed objects; raise Invalid if bad."""
    return _SeedBuilder(source).build(raw)


class _SeedBuilder:
    """Walks one parsed seed in file order, remembering ids that must be unique file-wide."""

    def __init__(self, source: str) -> None:
        self.seed = SeedData(source=source, reference_time=DEFAULT_REFERENCE_TIME)
        self.first_seen: dict[tuple[str, str], PathT] = {}
        self.raw: dict[str, object] = {}
        default = f"{DEFAULT_START_TIME} (the default; set reference_time to move it)"
        self.reference = Reference(DEFAULT_REFERENCE_TIME, default)
        # condition text -> the parser's message, or None if it parses (see read_step)
        self.condition_errors: dict[str, str | None] = {}
        self.kept_strings: dict[str, str] = {}  # metadata strings kept, see kept_metadata
        self.problems: list[Invalid] = []  # of the records skipped, in walk order
        self.skipped: set[str] = set()  # ids of the records skipped

    def skip(self, value: object, problem: Invalid | None) -> None:
        """Keep a bad record's problem (None: it only refers to a skipped record) and its id,
        so that records referring to it are skipped quietly."""
        if problem is not None:
            self.problems.append(problem)
        ident = value.get("id") if type(value) is dict else None
        if type(ident) is str:
            self.skipped.add(ident)

    def claim(self, kind: str, ident: str, path: PathT, key: str) -> None:
        """Record `ident` as taken by the mapping at `path`, or fail if another took it."""
        first = self.first_seen.setdefault((kind, ident), path)
        if first is not path:
            where = render_path((*first, key))
            fail(path, key, f"duplicate {kind} '{ident}' (first at {where})")

    def missing(self, section: str, kind: str, ident: object, path: PathT, key: str) -> NoReturn:
        """Refuse a reference to a `kind` this environment does not hold: silently when it
        names a record already reported and skipped, else saying whether it is a typo or a
        record of another account or environment."""
        if not isinstance(ident, str):  # a list or a mapping names no record
            fail(path, key, f"no such {kind}: {show(ident)}")
        if ident in self.skipped:
            raise RefersToSkipped
        elsewhere = self.anywhere(section, ident)
        problem = "belongs to another account or environment" if elsewhere else f"no such {kind}"
        fail(path, key, f"{problem}: {show(ident)}")

    def anywhere(self, section: str, ident: str) -> bool:
        """Whether any environment of the raw file lists `ident` under `section` (vaults or
        documents): the difference between a typo and a record of the wrong environment."""
        for account in _list(self.raw.get("accounts")):
            environments = account.get("environments") if type(account) is dict else None
            for env in environments.values() if type(environments) is dict else ():
                records = _list(env.get(section) if type(env) is dict else None)
                if any(type(r) is dict and r.get("id") == ident for r in records):
                    return True
        return False

    def build(self, value: object) -> SeedData:
        raw = self.raw = SEED.check(value, ())
        if raw["version"] != SUPPORTED_VERSION or type(raw["version"]) is not int:
            fail((), "version", f"unsupported version {show(raw['version'])} (expected 1)")
        self.seed.limits = limits(raw.get("limits"), ("limits",))
        if raw.get("reference_time") is not None:
            moment = timestamp(raw["reference_time"], (), "reference_time")
            self.reference = Reference(moment, format_ts(moment))
            self.seed.reference_time = moment
        accounts = items(raw["accounts"], (), "accounts")
        if not accounts:
            fail((), "accounts", "must list at least one account")
        for index, account in enumerate(accounts):
            try:
                self.account(account, ("accounts", index))
            except Invalid as problem:
                self.skip(account, problem)
        if self.problems:
            first = self.problems[0]
            first.others = self.problems[1:]
            raise first
        return self.seed

    def account(self, value: object, path: PathT) -> None:
        raw = ACCOUNT.check(value, path)
        account_id = prefixed_id(raw["id"], path, "id", "acct_")
        self.claim("account id", account_id, path, "id")
        name = text(raw["name"], path, "name", self.seed.limits.name_max)
        region = choice(raw["default_region"], path, "default_region", REGIONS)
        users: dict[str, User] = {}
        for index, item in enumerate(items(raw.get("users"), path, "users")):
            try:
                user = self.user(item, (*path, "users", index))
                if user.email in users:
                    fail((*path, "users", index), "email", f"duplicate user '{user.email}'")
            except Invalid as problem:
                self.skip(item, problem)
                continue
            users[user.email] = user
        self.seed.accounts[account_id] = Account(account_id, name, region, tuple(users.values()))
        for index, item in enumerate(items(raw.get("keys"), path, "keys")):
            try:
                self.key(item, (*path, "keys", index), account_id)
            except Invalid as problem:
                self.skip(item, problem)
        for index, item in enumerate(items(raw.get("oauth_clients"), path, "oauth_clients")):
            try:
                self.client(item, (*path, "oauth_clients", index), account_id)
            except Invalid as problem:
                self.skip(item, problem)
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
            try:
                vault = self.vault(item, (*path, "vaults", index))
            except Invalid as problem:
                self.skip(item, problem)
                continue
            vaults[vault.id] = vault
        placed: list[int] = []  # the index in the file of each document built
        for index, item in enumerate(items(raw.get("documents"), path, "documents")):
            try:
                env.documents.append(self.document(item, (*path, "documents", index), vaults))
            except Invalid as problem:
                self.skip(item, problem)
                continue
            except RefersToSkipped:
                self.skip(item, None)
                continue
            placed.append(index)
        env.workflows = read_workflows(self, raw.get("workflows"), path, env.documents, placed)
        hooks = items(raw.get("webhook_endpoints"), path, "webhook_endpoints")
        if len(hooks) > ENDPOINTS_MAX:
            fail(path, "webhook_endpoints", f"at most {ENDPOINTS_MAX} endpoints allowed")
        for index, item in enumerate(hooks):
            try:
                env.webhook_endpoints.append(
                    self.webhook_endpoint(item, (*path, "webhook_endpoints", index))
                )
            except Invalid as problem:
                self.skip(item, problem)
        # Oldest first; records of the same second keep their order in the file (the sort is
        # stable), which is the order the API lists them in: a sandbox exported as a seed
        # (`GET /_mock/seed`) writes them in the order they were made.
        env.vaults = sorted(vaults.values(), key=_created)
        env.documents.sort(key=_created)
        env.workflows.sort(key=_created)
        env.webhook_endpoints.sort(key=_created)
        return env

    def vault(self, value: object, path: PathT) -> Vault:
        raw = VAULT.check(value, path)
        vault_id = prefixed_id(raw["id"], path, "id", "vault_")
        self.claim("vault id", vault_id, path, "id")
        lock = raw.get("lock_after")
        members: dict[str, Member] = {}
        for index, item in enumerate(items(raw.get("members"), path, "members")):
            # members_max limits the addresses a create lists; its caller joins them as owner
            if index == self.seed.limits.members_max + 1:
                fail(
                    path, "members", f"at most {index} members allowed (the owner and {index - 1})"
                )
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
            created_at=self.reference.moment(raw["created_at"], path, "created_at"),
            members=list(members.values()),
            lock_after=LOCK_AFTER if lock is None else integer(lock, path, "lock_after", 0),
        )

    def document(self, value: object, path: PathT, vaults: dict[str, Vault]) -> Document:
        raw = DOCUMENT.check(value, path)
        doc_id = prefixed_id(raw["id"], path, "id", "doc_")
        self.claim("document id", doc_id, path, "id")
        vault_id = raw["vault_id"]
        vault = vaults.get(vault_id) if type(vault_id) is str else None
        if vault is None:
            self.missing("vaults", "vault", vault_id, path, "vault_id")
        title = text(raw["title"], path, "title", self.seed.limits.title_max)
        status = choice(raw["status"], path, "status", DOCUMENT_STATUSES)
        created_at = self.reference.moment(raw["created_at"], path, "created_at")
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
        if signers and not signed:
            fail(path, "signers", f"must be empty for a {status} document")
        signed_at = raw.get("signed_at")
        if signed_at is not None:
            if not signed:
                fail(path, "signed_at", f"not allowed for a {status} document")
            signed_at = self.reference.moment(signed_at, path, "signed_at")
            if signed_at < created_at:
                fail(path, "signed_at", "is before the document's created_at")
            if status == "signed" and signed_at + vault.lock_after <= self.reference.time:
                problem = (
                    f"signed at {format_ts(signed_at)} with lock_after {vault.lock_after} would "
                    f"already be locked at the reference time {self.reference.label}; "
                    "make it locked or give its vault a longer lock_after"
                )
                raise Invalid(path, problem, at=(*path, "status"))
        elif signed:
            raise Invalid(path, f"missing required field 'signed_at' (status is {status})")
        legal_hold = raw.get("legal_hold")
        legal_hold = False if legal_hold is None else boolean(legal_hold, path, "legal_hold")
        versions = [
            DocumentVersion(v, hashlib.sha256(f"{doc_id}:{v}".encode()).hexdigest(), created_at)
            for v in range(1, version)
        ]
        sha256 = fresh(sha256)
        versions.append(DocumentVersion(version, sha256, created_at))
        return Document(
            id=fresh(doc_id),
            vault_id=vault.id,
            region=vault.region,
            title=fresh(title),
            status=status,
            created_at=created_at,
            sha256=sha256,
            metadata=kept_metadata(meta, self.kept_strings),
            version=version,
            versions=versions,
            signers=signers,
            legal_hold=legal_hold,
            signed_at=signed_at,
        )

    def webhook_endpoint(self, value: object, path: PathT) -> EndpointSeed:
        raw = ENDPOINT.check(value, path)
        endpoint_id = prefixed_id(raw["id"], path, "id", "whk_")
        self.claim("webhook endpoint id", endpoint_id, path, "id")
        secret = raw.get("secret")
        if secret is None:  # the same on every run, so receivers can be set up once
            secret = SECRET_PREFIX + hashlib.sha256(f"{endpoint_id}:secret".encode()).hexdigest()
        else:
            secret = text(secret, path, "secret")
            if not secret.startswith(SECRET_PREFIX) or secret == SECRET_PREFIX:
                fail(path, "secret", f"must start with '{SECRET_PREFIX}' and go on")
        return EndpointSeed(
            id=fresh(endpoint_id),
            url=fresh(webhook_url(raw["url"], path, "url")),
            events=event_types(raw["events"], path, "events"),
            secret=fresh(secret),
            created_at=self.reference.moment(raw["created_at"], path, "created_at"),
        )


def _created(record: Vault | Document | Workflow | EndpointSeed) -> int:
    return record.created_at


def _list(value: object) -> list[object]:
    return value if type(value) is list else []
