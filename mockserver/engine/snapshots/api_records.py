"""The API's resources in a snapshot: accounts with their users, keys, OAuth clients, codes and
tokens, vaults with members, documents with their versions, workflows with their steps, audit
export jobs and audit events. Each is read from checked fields and built by calling its own
dataclass with them."""

from __future__ import annotations

from typing import Any

from mockserver.audit.log import AuditEvent
from mockserver.core.containers import DictOf, ListOf, Opt, Tuple
from mockserver.core.kinds import Bool, Bytes, Int, Invalid, Json, Reader, Str
from mockserver.domain.models import (
    DECISIONS,
    DOCUMENT_STATUSES,
    WORKFLOW_STATUSES,
    Account,
    ApiKey,
    Document,
    DocumentVersion,
    ExportJob,
    Member,
    OAuthClient,
    User,
    Vault,
    Workflow,
    WorkflowStep,
)
from mockserver.domain.oauth_state import AccessToken, AuthorizationCode
from mockserver.engine.snapshots.kinds import Rec
from mockserver.engine.snapshots.records import (
    COUNT,
    DUE_SECOND,
    DURATION,
    ENVIRONMENT,
    PERIOD_BOUND,
    REGION,
    STRING_SET,
    STRINGS,
    TEXT,
    TIME,
    Spec,
    record,
)

# -- accounts, keys, OAuth -----------------------------------------------------------------

record(Spec(User, {"email": TEXT, "name": TEXT, "permissions": STRINGS}))
record(
    Spec(
        Account,
        {
            "id": TEXT,
            "name": TEXT,
            "default_region": REGION,
            "users": ListOf(Rec("User"), tuple),
        },
    )
)
record(
    Spec(
        ApiKey,
        {
            "key": TEXT,
            "account_id": TEXT,
            "environment": ENVIRONMENT,
            "scopes": STRING_SET,
            "owner": TEXT,
            "revoked": Bool(),
            "rate_limit": Int(1),
            "burst": Int(1),
        },
    )
)
record(
    Spec(
        OAuthClient,
        {
            "client_id": TEXT,
            "client_secret": TEXT,
            "account_id": TEXT,
            "redirect_uris": STRINGS,
            "name": TEXT,
            "token_lifetime": Int(1, 2**53),
        },
    )
)
record(
    Spec(
        AuthorizationCode,
        {
            "code": TEXT,
            "client_id": TEXT,
            "account_id": TEXT,
            "user_email": TEXT,
            "scopes": STRING_SET,
            "redirect_uri": TEXT,
            "redirect_uri_given": Bool(),
            "code_challenge": Opt(TEXT),
            "expires_at": DUE_SECOND,
            "token": Opt(TEXT),
        },
    )
)
record(
    Spec(
        AccessToken,
        {
            "token": TEXT,
            "client_id": TEXT,
            "account_id": TEXT,
            "user_email": TEXT,
            "scopes": STRING_SET,
            "expires_at": DUE_SECOND,
            "expires_in": DURATION,
            "revoked": Bool(),
        },
    )
)

# -- vaults, documents, workflows, exports -------------------------------------------------

record(Spec(Member, {"email": TEXT, "role": Str(("owner", "member"))}))
record(
    Spec(
        Vault,
        {
            "id": TEXT,
            "name": TEXT,
            "region": REGION,
            "created_at": TIME,
            "members": ListOf(Rec("Member")),
            "lock_after": DURATION,
            "seq": COUNT,
        },
    )
)
record(Spec(DocumentVersion, {"version": Int(1), "sha256": TEXT, "created_at": TIME}))
record(
    Spec(
        Document,
        {
            "id": TEXT,
            "vault_id": TEXT,
            "region": REGION,
            "title": TEXT,
            "status": Str(DOCUMENT_STATUSES),
            "created_at": TIME,
            "sha256": TEXT,
            "metadata": DictOf(TEXT, Json()),
            "version": Int(1),
            "versions": ListOf(Rec("DocumentVersion")),
            "signers": ListOf(TEXT),
            "legal_hold": Bool(),
            "signed_at": Opt(TIME),
            "deleted": Bool(),
            "seq": COUNT,
        },
        skip=("summary_json", "detail_json"),
    )
)
record(
    Spec(
        WorkflowStep,
        {
            "assignee": TEXT,
            "condition": Opt(TEXT),
            "decision": Opt(Str((*DECISIONS, "skipped"))),
            "decided_at": Opt(TIME),
            "comment": Opt(TEXT),
        },
    )
)


def _workflow(into: Reader, values: dict[str, Any]) -> Workflow:
    workflow = Workflow(**values)
    if not workflow.steps:
        error = Invalid("a workflow has at least one step")
        error.path.append("steps")
        raise error
    if workflow.current_step > len(workflow.steps):
        raise Invalid("'current_step' must name one of its steps")
    return workflow


record(
    Spec(
        Workflow,
        {
            "id": TEXT,
            "document_id": TEXT,
            "region": REGION,
            "status": Str(WORKFLOW_STATUSES),
            "current_step": Int(1),
            "created_at": TIME,
            "steps": ListOf(Rec("WorkflowStep")),
            "last_decision": Opt(Tuple(TEXT, Str(DECISIONS))),
            "seq": COUNT,
        },
        make=_workflow,
    )
)
record(
    Spec(
        ExportJob,
        {
            "id": TEXT,
            "region": REGION,
            "period": TEXT,
            "start": PERIOD_BOUND,
            "end": PERIOD_BOUND,
            "format": Str(("csv",)),
            "status": Str(("processing", "completed")),
            "created_at": TIME,
            "completed_at": Opt(TIME),
            "expires_at": Opt(DUE_SECOND),
            "signature": Opt(TEXT),
            "snapshot_seq": COUNT,
        },
        shared=True,
    )
)
record(
    Spec(
        AuditEvent,
        {
            "seq": Int(1),
            "id": TEXT,
            "type": TEXT,
            "actor": TEXT,
            "at": TIME,
            "resource_id": TEXT,
            "hash": TEXT,
            "raw": Bytes(),
        },
    )
)
