"""A sandbox's current data as a seed file: what `GET /_mock/seed` answers.

Everything a seed can say is read from the store as the API serves it: accounts with their
users, keys and OAuth clients, and per (account, environment) the vaults with members, the
documents (status, version, metadata, signers, legal hold), the workflows with every step's
decision, and the webhook endpoints (the delivery engine hands them over as `EndpointSeed`s).
A world not built yet is read from the seed's own objects, with the locks that fell due since
the start applied, which is what building it would show; so a read builds nothing.

Times are written as the API shows them and `reference_time` is the mock clock's time (whole
seconds): a server started at that time serves the very same times, and one started elsewhere
shifts them all by the same amount, as it shifts any seed. Records come oldest first in the
order they were made, the order the loader keeps for records of the same second, so the API
lists them as before. What a seed cannot hold is left out (docs/guides/keep-a-state-as-a-seed.md):
deleted documents and their workflows, audit history, the journal, deliveries, idempotency
records, rate windows, OAuth codes and tokens, audit exports, scenarios and the clock's mode.

The YAML is the house style of `yaml_writer` (generated seeds): structure in block style, each
record of scalars on one line, so a person can read and edit it; the same state always gives
the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields

from mockserver.core.clock import format_ts
from mockserver.domain.models import (
    ENVIRONMENTS,
    LOCK_AFTER,
    READ_SCOPES,
    SCOPES,
    TOKEN_LIFETIME,
    Account,
    ApiKey,
    Document,
    EndpointSeed,
    Limits,
    OAuthClient,
    Vault,
    Workflow,
    WorkflowStep,
)
from mockserver.domain.store import RegionData, Store
from mockserver.seeds.builder import KEY_PREFIXES, SUPPORTED_VERSION
from mockserver.seeds.world import pristine_of
from mockserver.seeds.yaml_writer import Record, Style, emit

Endpoints = Mapping[tuple[str, str], Sequence[EndpointSeed]]
# Read and edited by people, not loaded in bulk: each record a block of one field a line (a
# change is a line of a diff), what it lists (members, steps) one line each.
STYLE = Style(
    json_lines=frozenset(),
    blocks=frozenset({"accounts", "vaults", "documents", "workflows", "webhook_endpoints"}),
)

HEADER = """\
# The data of a mockserver sandbox, as GET /_mock/seed wrote it. reference_time is the mock
# clock's time then: `mockserver run --seed FILE --start-time <reference_time>` serves the
# very same times; started at another time, every time moves by the same amount.
# Not in a seed: deleted documents (and their workflows), audit history, the request journal,
# webhook deliveries, idempotency records, OAuth codes and tokens, audit exports, scenarios.
"""


def seed_text(
    store: Store, endpoints: Endpoints, more: Sequence[tuple[Store, Endpoints]] = ()
) -> str:
    """The store's data as seed YAML (see the module docstring); `more`: the stores of the
    accounts with a sandbox of their own, whose accounts follow the store's."""
    return HEADER + emit(seed_record(store, endpoints, more), STYLE)


def seed_record(
    store: Store, endpoints: Endpoints, more: Sequence[tuple[Store, Endpoints]] = ()
) -> Record:
    """The store's data (and `more` stores' accounts) as the plain mapping a seed file holds."""
    record: Record = {"version": SUPPORTED_VERSION, "reference_time": format_ts(store.now())}
    limits = _limits(store.limits)
    if limits:
        record["limits"] = limits
    record["accounts"] = [
        _account(owner, account, hooks)
        for owner, hooks in ((store, endpoints), *more)
        for account in owner.accounts.values()
    ]
    return record


def _limits(limits: Limits) -> Record:
    """The limits that differ from the defaults."""
    default = Limits()
    return {
        f.name: getattr(limits, f.name)
        for f in fields(Limits)
        if getattr(limits, f.name) != getattr(default, f.name)
    }


def _account(store: Store, account: Account, endpoints: Endpoints) -> Record:
    record: Record = {
        "id": account.id,
        "name": account.name,
        "default_region": account.default_region,
    }
    users = [
        {"email": u.email, "name": u.name, "permissions": _scopes(u.permissions)}
        for u in account.users
    ]
    keys = [_key(key) for key in store.keys.values() if key.account_id == account.id]
    clients = [_client(c) for c in store.oauth.clients.values() if c.account_id == account.id]
    for name, value in (("users", users), ("keys", keys), ("oauth_clients", clients)):
        if value:
            record[name] = value
    record["environments"] = {
        env: _environment(store, (account.id, env), endpoints.get((account.id, env), ()))
        for env in ENVIRONMENTS
    }
    return record


def _client(client: OAuthClient) -> Record:
    record: Record = {"client_id": client.client_id, "client_secret": client.client_secret}
    if client.name:
        record["name"] = client.name
    record["redirect_uris"] = list(client.redirect_uris)
    if client.token_lifetime != TOKEN_LIFETIME:
        record["token_lifetime"] = client.token_lifetime
    return record


def _scopes(granted: Iterable[str]) -> str | list[str]:
    """`all`, `read`, or the scopes in the order the seed format lists them."""
    held = set(granted)
    if held == set(SCOPES):
        return "all"
    if held == set(READ_SCOPES):
        return "read"
    return [scope for scope in SCOPES if scope in held]


def _key(key: ApiKey) -> Record:
    record: Record = {"key": key.key, "owner": key.owner, "scopes": _scopes(key.scopes)}
    if key.revoked:
        record["revoked"] = True
    _, rate, burst = KEY_PREFIXES[key.key[:8]]
    if key.rate_limit != rate:
        record["rate_limit"] = key.rate_limit
    if key.burst != max(burst, key.rate_limit):  # what the loader makes of no burst
        record["burst"] = key.burst
    return record


def _environment(store: Store, key: tuple[str, str], hooks: Sequence[EndpointSeed]) -> Record:
    """One (account, environment): its world as built, or the seed's objects if it is not."""
    world = store.worlds.get(key)
    regions: Mapping[str, RegionData]
    locked: frozenset[str] = frozenset()
    if world is not None:
        regions = world.regions
    elif key in store.seed.environments:
        pristine = pristine_of(store, key)
        regions = pristine.regions
        now = store.now()
        locked = frozenset(doc.id for due, doc in pristine.locks if due <= now)
    else:
        regions = {}
    live = [d for data in regions.values() for d in data.doc_order if not d.deleted]
    kept = {d.id for d in live}
    record: Record = {}
    vaults = sorted((v for data in regions.values() for v in data.vault_order), key=_seq)
    if vaults:
        record["vaults"] = [_vault(v) for v in vaults]
    if live:
        record["documents"] = [_document(d, d.id in locked) for d in sorted(live, key=_seq)]
    workflows = [
        w for data in regions.values() for w in data.workflows.values() if w.document_id in kept
    ]
    if workflows:
        record["workflows"] = [_workflow(w) for w in sorted(workflows, key=_seq)]
    if hooks:
        record["webhook_endpoints"] = [_endpoint(hook) for hook in hooks]
    return record


def _seq(item: Vault | Document | Workflow) -> int:
    return item.seq


def _vault(vault: Vault) -> Record:
    record: Record = {
        "id": vault.id,
        "name": vault.name,
        "region": vault.region,
        "created_at": format_ts(vault.created_at),
    }
    if vault.lock_after != LOCK_AFTER:
        record["lock_after"] = vault.lock_after
    if vault.members:
        record["members"] = [{"email": m.email, "role": m.role} for m in vault.members]
    return record


def _document(doc: Document, lock_fell_due: bool) -> Record:
    record: Record = {
        "id": doc.id,
        "vault_id": doc.vault_id,
        "title": doc.title,
        "status": "locked" if lock_fell_due else doc.status,
        "created_at": format_ts(doc.created_at),
        "sha256": doc.sha256,
    }
    if doc.version != 1:
        record["version"] = doc.version
    if doc.metadata:
        record["metadata"] = dict(doc.metadata)
    if doc.signers:
        record["signers"] = list(doc.signers)
    if doc.signed_at is not None:
        record["signed_at"] = format_ts(doc.signed_at)
    if doc.legal_hold:
        record["legal_hold"] = True
    return record


def _workflow(workflow: Workflow) -> Record:
    return {
        "id": workflow.id,
        "document_id": workflow.document_id,
        "status": workflow.status,
        "created_at": format_ts(workflow.created_at),
        "current_step": workflow.current_step,
        "steps": [_step(step) for step in workflow.steps],
    }


def _step(step: WorkflowStep) -> Record:
    record: Record = {"assignee": step.assignee}
    if step.condition is not None:
        record["condition"] = step.condition
    if step.decision is not None:
        record["decision"] = step.decision
    if step.decided_at is not None:
        record["decided_at"] = format_ts(step.decided_at)
    if step.comment is not None:
        record["comment"] = step.comment
    return record


def _endpoint(hook: EndpointSeed) -> Record:
    return {
        "id": hook.id,
        "url": hook.url,
        "events": list(hook.events),
        "created_at": format_ts(hook.created_at),
        "secret": hook.secret,
    }
