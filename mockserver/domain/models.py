"""The resources the mock stores, as plain slotted dataclasses.

Timestamps are int Unix seconds (the API renders whole seconds). Seeds are loaded into these
types once; worlds share the seeded objects and copy one (`copy_*`) before changing it, so a
reset can start again from the pristine seed. A document keeps its rendered JSON beside it
(`summary_json`, `detail_json`): whoever changes a document clears them (`World.writable_document`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

REGIONS = ("us", "eu")
ENVIRONMENTS = ("sandbox", "live")
DOCUMENT_STATUSES = ("draft", "in_review", "signed", "locked")
RESOURCES = ("documents", "vaults", "workflows", "audit", "webhooks")
SCOPES = tuple(f"{resource}:{access}" for resource in RESOURCES for access in ("read", "write"))
READ_SCOPES = tuple(scope for scope in SCOPES if scope.endswith(":read"))
ENCRYPTION = "AES-256-GCM with envelope encryption"
TOKEN_LIFETIME = 3600  # default `expires_in` of OAuth access tokens, in seconds
LOCK_AFTER = 300  # default seconds from a document's signing to its lock, per vault


@dataclass(frozen=True, slots=True)
class Limits:
    """Field limits the API leaves open (docs/reference/errors-and-limits.md); seeds may
    override them."""

    title_max: int = 500
    name_max: int = 200
    metadata_keys: int = 50
    metadata_key_len: int = 40
    metadata_value_len: int = 500
    members_max: int = 100
    steps_max: int = 20


@dataclass(frozen=True, slots=True)
class User:
    """A person of an account; OAuth tokens act for one and carry their permissions."""

    email: str
    name: str
    permissions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    default_region: str
    users: tuple[User, ...] = ()


@dataclass(slots=True)
class ApiKey:
    """A secret key. Its prefix picks the environment; `owner` is the audit actor of its writes."""

    key: str
    account_id: str
    environment: str
    scopes: frozenset[str]
    owner: str
    revoked: bool = False
    rate_limit: int = 120
    burst: int = 200


@dataclass(frozen=True, slots=True)
class OAuthClient:
    client_id: str
    client_secret: str
    account_id: str
    redirect_uris: tuple[str, ...]
    name: str = ""
    token_lifetime: int = TOKEN_LIFETIME  # the `expires_in` of the tokens it is issued


@dataclass(slots=True)
class Member:
    email: str
    role: str


@dataclass(slots=True)
class Vault:
    id: str
    name: str
    region: str
    created_at: int
    members: list[Member] = field(default_factory=list)
    lock_after: int = LOCK_AFTER  # seconds from signing until the system locks a document
    seq: int = 0  # insertion order within its region, assigned by the store


@dataclass(slots=True)
class DocumentVersion:
    version: int
    sha256: str
    created_at: int


@dataclass(slots=True)
class Document:
    id: str
    vault_id: str
    region: str
    title: str
    status: str
    created_at: int
    sha256: str
    metadata: dict[str, str | int | bool] = field(default_factory=dict)
    version: int = 1
    versions: list[DocumentVersion] = field(default_factory=list)
    signers: list[str] = field(default_factory=list)
    legal_hold: bool = False
    signed_at: int | None = None
    deleted: bool = False
    seq: int = 0  # insertion order within its region, assigned by the store
    # Rendered JSON of `views.document_summary` / `document_detail`, made on first use.
    summary_json: bytes | None = field(default=None, init=False, repr=False, compare=False)
    detail_json: bytes | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def under_retention(self) -> bool:
        """Signed and locked documents are kept: they cannot be deleted."""
        return self.status in ("signed", "locked")


WORKFLOW_STATUSES = ("in_progress", "completed", "rejected")
DECISIONS = ("approve", "reject")


@dataclass(slots=True)
class WorkflowStep:
    """One approval step; `decision` is approve, reject or skipped once decided."""

    assignee: str
    condition: str | None = None
    decision: str | None = None
    decided_at: int | None = None
    comment: str | None = None


@dataclass(slots=True)
class Workflow:
    id: str
    document_id: str
    region: str
    status: str
    current_step: int  # 1-based; stays on the last decided step once the workflow ends
    created_at: int
    steps: list[WorkflowStep] = field(default_factory=list)
    last_decision: tuple[str, str] | None = None  # (by, decision)
    seq: int = 0


# Copies written out field by field: faster than dataclasses.replace, which matters when a big
# seed is copied. tests/unit/seeds/test_seeding_copies.py fails if a model gains a field these
# do not carry over. Rendered JSON caches are not carried: a copy renders anew.


def copy_vault(vault: Vault, shift: int = 0) -> Vault:
    """A vault sharing no mutable state with `vault`, its times moved `shift` seconds."""
    return Vault(
        id=vault.id,
        name=vault.name,
        region=vault.region,
        created_at=vault.created_at + shift,
        members=[Member(m.email, m.role) for m in vault.members],
        lock_after=vault.lock_after,
        seq=vault.seq,
    )


def copy_document(doc: Document, shift: int = 0) -> Document:
    """A document sharing no mutable state with `doc`, its times moved `shift` seconds."""
    return Document(
        id=doc.id,
        vault_id=doc.vault_id,
        region=doc.region,
        title=doc.title,
        status=doc.status,
        created_at=doc.created_at + shift,
        sha256=doc.sha256,
        metadata=dict(doc.metadata),
        version=doc.version,
        versions=[DocumentVersion(v.version, v.sha256, v.created_at + shift) for v in doc.versions],
        signers=list(doc.signers),
        legal_hold=doc.legal_hold,
        signed_at=None if doc.signed_at is None else doc.signed_at + shift,
        deleted=doc.deleted,
        seq=doc.seq,
    )


def copy_step(step: WorkflowStep, shift: int = 0) -> WorkflowStep:
    """A step with its decision time moved `shift` seconds."""
    return WorkflowStep(
        assignee=step.assignee,
        condition=step.condition,
        decision=step.decision,
        decided_at=None if step.decided_at is None else step.decided_at + shift,
        comment=step.comment,
    )


def copy_workflow(workflow: Workflow, shift: int = 0) -> Workflow:
    """A workflow sharing no mutable state with `workflow`, its times moved `shift` seconds."""
    return Workflow(
        id=workflow.id,
        document_id=workflow.document_id,
        region=workflow.region,
        status=workflow.status,
        current_step=workflow.current_step,
        created_at=workflow.created_at + shift,
        steps=[copy_step(s, shift) for s in workflow.steps],
        last_decision=workflow.last_decision,
        seq=workflow.seq,
    )


@dataclass(slots=True)
class ExportJob:
    id: str
    region: str
    period: str
    start: int  # inclusive, Unix seconds
    end: int  # exclusive: the day after the period's last date
    format: str
    status: str
    created_at: int
    completed_at: int | None = None
    expires_at: int | None = None
    signature: str | None = None
    snapshot_seq: int = 0  # the export holds the chain's events up to this seq


@dataclass(frozen=True, slots=True)
class EndpointSeed:
    """A webhook endpoint a seed gives an (account, environment); the delivery engine makes
    the endpoint of it (`webhooks/endpoints.py`, WebhookEndpoint), its time shifted."""

    id: str
    url: str
    events: tuple[str, ...]
    secret: str
    created_at: int


@dataclass(slots=True)
class EnvironmentSeed:
    """What one (account, environment) starts with."""

    vaults: list[Vault] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    workflows: list[Workflow] = field(default_factory=list)
    webhook_endpoints: list[EndpointSeed] = field(default_factory=list)


@dataclass(slots=True)
class SeedData:
    """A whole validated seed file: credentials, accounts and each environment's data."""

    source: str
    accounts: dict[str, Account] = field(default_factory=dict)
    keys: dict[str, ApiKey] = field(default_factory=dict)
    oauth_clients: dict[str, OAuthClient] = field(default_factory=dict)
    environments: dict[tuple[str, str], EnvironmentSeed] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    reference_time: int | None = None  # seeded times are shifted so this maps to clock start
    # The seed cache's digest of the file and code it came from (big seeds only): what a
    # cached seeded history is keyed by. Not part of the seed's value.
    digest: str | None = field(default=None, compare=False)
