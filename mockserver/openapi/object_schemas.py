"""Response schemas: every resource as the mock shows it (`domain/views.py`), and the lists.

Fields the views always write are required, with their types, enums and nullability, so a
response-schema check means something; unknown fields stay allowed, since the API
may add fields within v1 and tells clients to ignore them. Enums come from the models.
"""

from __future__ import annotations

from mockserver.domain.audit_exports import CSV_COLUMNS
from mockserver.domain.models import (
    DECISIONS,
    DOCUMENT_STATUSES,
    ENCRYPTION,
    ENVIRONMENTS,
    REGIONS,
    SCOPES,
    WORKFLOW_STATUSES,
)
from mockserver.openapi.fields import (
    EMAIL_OUTPUT,
    METADATA_VALUE,
    SHA256,
    TIMESTAMP,
    Schema,
    enum,
    nullable,
    obj,
    prefixed_id,
    ref,
)

DOC_ID = prefixed_id("doc_", "Document")
VAULT_ID = prefixed_id("vault_", "Vault")
WORKFLOW_ID = prefixed_id("wf_", "Workflow")
EVENT_ID = prefixed_id("evt_", "Event")
EXPORT_ID = prefixed_id("exp_", "Audit export job")
WEBHOOK_ID = prefixed_id("whk_", "Webhook endpoint")
REQUEST_ID: Schema = {"type": "string", "pattern": "^req_[A-Za-z0-9]+$"}
CURSOR: Schema = {"type": "string", "pattern": "^cur_[A-Za-z0-9_-]+$"}
REGION = enum(REGIONS, "Data residency: `us` or `eu`.")
EXPORT_STATUSES = ("processing", "completed")
STEP_DECISIONS = (*DECISIONS, "skipped")
MEMBER_ROLES = ("owner", "member")


def const(value: str) -> Schema:
    return {"type": "string", "const": value}


def _list(item: str, *, paginated: bool) -> Schema:
    properties: dict[str, Schema] = {
        "object": const("list"),
        "data": {"type": "array", "items": ref(item)},
    }
    required = ["object", "data"]
    if paginated:
        properties["has_more"] = {"type": "boolean"}
        properties["next_cursor"] = nullable(
            {**CURSOR, "description": "Pass as `cursor` for the next page; null on the last."}
        )
        required += ["has_more", "next_cursor"]
    return obj(properties, required)


def _identity() -> Schema:
    return obj(
        {
            "account_id": {"type": "string"},
            "region": REGION,
            "environment": enum(ENVIRONMENTS, "`sandbox` for sk_test_ keys, `live` for sk_live_."),
            "scopes": {"type": "array", "items": enum(SCOPES)},
            "rate_limit": {"type": "integer", "minimum": 1, "description": "Requests per minute."},
        },
        ["account_id", "region", "environment", "scopes", "rate_limit"],
    )


def _vaults() -> dict[str, Schema]:
    created = {
        "id": VAULT_ID,
        "object": const("vault"),
        "name": {"type": "string"},
        "region": REGION,
        "encryption": {"type": "string", "examples": [ENCRYPTION]},
        "created_at": TIMESTAMP,
    }
    role = {
        "type": "string",
        "examples": list(MEMBER_ROLES),
        "description": "`owner` (the creator), `member` (listed on create); seeds may name "
        "other roles.",
    }
    member = obj({"email": EMAIL_OUTPUT, "role": role}, ["email", "role"])
    detail = {
        **created,
        "members": {"type": "array", "items": member},
        "document_count": {"type": "integer", "minimum": 0},
    }
    summary = {
        "id": VAULT_ID,
        "object": const("vault"),
        "name": {"type": "string"},
        "region": REGION,
        "members": {"type": "integer", "minimum": 0, "description": "Member count."},
    }
    return {
        "VaultCreated": obj(created, list(created)),
        "Vault": obj(detail, list(detail)),
        "VaultSummary": obj(summary, list(summary)),
        "VaultList": _list("VaultSummary", paginated=False),
    }


def _documents() -> dict[str, Schema]:
    summary = {
        "id": DOC_ID,
        "object": const("document"),
        "title": {"type": "string"},
        "status": enum(DOCUMENT_STATUSES),
        "version": {"type": "integer", "minimum": 1},
        "vault_id": VAULT_ID,
        "created_at": TIMESTAMP,
    }
    created = {
        **summary,
        "metadata": {"type": "object", "additionalProperties": METADATA_VALUE},
        "region": REGION,
    }
    version = {
        "version": {"type": "integer", "minimum": 1},
        "sha256": SHA256,
        "created_at": TIMESTAMP,
    }
    detail = {
        **created,
        "signers": {"type": "array", "items": EMAIL_OUTPUT},
        "sha256": SHA256,
        "signed_at": nullable(TIMESTAMP),
        "legal_hold": {"type": "boolean"},
        "versions": {"type": "array", "items": obj(version, list(version))},
    }
    deleted: dict[str, Schema] = {
        "id": {"type": "string"},
        "object": {"type": "string"},
        "deleted": {"type": "boolean", "const": True},
    }
    return {
        "DocumentSummary": obj(summary, list(summary)),
        "DocumentCreated": obj(created, list(created)),
        "Document": obj(detail, list(detail)),
        "DocumentList": _list("DocumentSummary", paginated=True),
        "Deleted": obj(deleted, list(deleted)),
    }


def _workflows() -> dict[str, Schema]:
    created = {
        "id": WORKFLOW_ID,
        "object": const("workflow"),
        "document_id": DOC_ID,
        "status": enum(WORKFLOW_STATUSES, "`rejected` is the halted state."),
        "current_step": {"type": "integer", "minimum": 1},
        "created_at": TIMESTAMP,
    }
    decision = obj({"by": EMAIL_OUTPUT, "decision": enum(DECISIONS)}, ["by", "decision"])
    last = {"last_decision": nullable(ref("LastDecision"))}
    advanced = {k: created[k] for k in ("id", "object", "status", "current_step")} | last
    step = {
        "assignee": EMAIL_OUTPUT,
        "condition": nullable({"type": "string"}),
        "decision": nullable(enum(STEP_DECISIONS)),
        "decided_at": nullable(TIMESTAMP),
        "comment": nullable({"type": "string"}),
    }
    detail = {**created, **last, "steps": {"type": "array", "items": obj(step, list(step))}}
    return {
        "LastDecision": decision,
        "WorkflowCreated": obj(created, list(created)),
        "WorkflowAdvanced": obj(advanced, list(advanced)),
        "Workflow": obj(detail, list(detail)),
    }


def _audit() -> dict[str, Schema]:
    event = {
        "id": EVENT_ID,
        "object": const("audit_event"),
        "type": {"type": "string", "examples": ["document.locked"]},
        "actor": {
            "type": "string",
            "description": "The email of whoever acted, or `system` for timers.",
        },
        "at": TIMESTAMP,
        "resource_id": {"type": "string"},
        "data": {"type": "object", "description": "The resource as it then was."},
        "seq": {"type": "integer", "minimum": 1},
        "prev_hash": SHA256,
        "hash": {
            **SHA256,
            "description": "SHA-256 of the RFC 8785 canonical JSON of the event without `hash`.",
        },
    }
    job = {
        "id": EXPORT_ID,
        "object": const("audit_export"),
        "status": enum(EXPORT_STATUSES),
        "format": enum(("csv",)),
        "period": {"type": "string", "examples": ["2026-01-01/2026-01-31"]},
        "created_at": TIMESTAMP,
        "completed_at": nullable(TIMESTAMP),
        "download_url": nullable(
            {
                "type": "string",
                "format": "uri",
                "description": "Pre-signed; needs no credential. "
                f"CSV columns: {', '.join(CSV_COLUMNS)}.",
            }
        ),
        "expires_at": nullable(TIMESTAMP),
    }
    return {
        "AuditEvent": obj(event, list(event)),
        "AuditEventList": _list("AuditEvent", paginated=True),
        "ExportJob": obj(job, list(job)),
    }


def _oauth() -> dict[str, Schema]:
    token = {
        "access_token": {"type": "string", "pattern": "^oat_[A-Za-z0-9]+$"},
        "token_type": const("Bearer"),
        "expires_in": {"type": "integer", "minimum": 1, "description": "Seconds."},
        "scope": {"type": "string", "description": "Granted scopes, space-separated, sorted."},
    }
    return {"TokenResponse": obj(token, list(token))}


def _webhooks() -> dict[str, Schema]:
    events = {"type": "array", "items": {"type": "string"}}
    endpoint = {
        "id": WEBHOOK_ID,
        "url": {"type": "string", "format": "uri"},
        "events": events,
        "status": {"type": "string", "examples": ["active"]},
    }
    created = {
        **endpoint,
        "signing_secret": {
            "type": "string",
            "pattern": "^whsec_",
            "description": "Shown once: verify `X-Service-Signature` with it.",
        },
    }
    return {
        "WebhookEndpoint": obj(endpoint, ["id", "url", "events"]),
        "WebhookEndpointCreated": obj(created, ["id", "url", "signing_secret", "status"]),
        "WebhookEndpointList": _list("WebhookEndpoint", paginated=False),
    }


def resource_schemas() -> dict[str, Schema]:
    """components/schemas of every response body (errors are in responses.py)."""
    return {
        "Identity": _identity(),
        **_vaults(),
        **_documents(),
        **_workflows(),
        **_audit(),
        **_oauth(),
        **_webhooks(),
    }
