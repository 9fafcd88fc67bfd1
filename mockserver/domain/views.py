"""How resources are shown: the JSON objects of the API, built from models.

One function per shape the spec lists, so handlers and (later) webhook payloads show a
resource the same way. Documents are read far more than changed, so their list item and detail
are also kept rendered (`*_json`, the bytes orjson makes of the dict), cleared by every change
(`World.writable_document`): a page is then a join of cached bytes.

Bytes kept for a long time are compacted to their size. orjson (3.12 and later) returns bytes
objects whose allocation is a block of a fixed size, much larger than a typical answer,
whatever the content. That is free for an answer sent and dropped, and costly for bytes the
mock holds on to: a document's cached rendering, a journal entry, a webhook envelope.
`compacted` copies bytes into an object of exactly their length; every place that stores bytes
orjson made (or bytes that may be them) passes them through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from mockserver.core.clock import format_ts
from mockserver.domain.models import ENCRYPTION, Document, ExportJob, Vault, Workflow


def compacted(raw: bytes) -> bytes:
    """`raw` in an object of exactly its size (a copy; small next to the block it frees)."""
    return bytes(memoryview(raw))


def dumps_compacted(value: Any, option: int | None = None) -> bytes:
    """`orjson.dumps(value, option=option)`, for bytes that are stored."""
    return compacted(orjson.dumps(value, option=option))


def vault_created(vault: Vault) -> dict[str, Any]:
    """`POST /v1/vaults` answer: `{id, name, region, encryption}`."""
    return {
        "id": vault.id,
        "object": "vault",
        "name": vault.name,
        "region": vault.region,
        "encryption": ENCRYPTION,
        "created_at": format_ts(vault.created_at),
    }


def vault_summary(vault: Vault) -> dict[str, Any]:
    """An item of `GET /v1/vaults`: members is a count there."""
    return {
        "id": vault.id,
        "object": "vault",
        "name": vault.name,
        "region": vault.region,
        "members": len(vault.members),
    }


def vault_detail(vault: Vault, document_count: int) -> dict[str, Any]:
    """`GET /v1/vaults/{id}`: members as `{email, role}` objects, and the document count."""
    return {
        **vault_created(vault),
        "members": [{"email": m.email, "role": m.role} for m in vault.members],
        "document_count": document_count,
    }


def document_summary(doc: Document) -> dict[str, Any]:
    """An item of `GET /v1/documents`."""
    return {
        "id": doc.id,
        "object": "document",
        "title": doc.title,
        "status": doc.status,
        "version": doc.version,
        "vault_id": doc.vault_id,
        "created_at": format_ts(doc.created_at),
    }


def document_created(doc: Document) -> dict[str, Any]:
    """`POST /v1/documents` answer."""
    return {
        "id": doc.id,
        "object": "document",
        "title": doc.title,
        "vault_id": doc.vault_id,
        "metadata": dict(doc.metadata),
        "status": doc.status,
        "version": doc.version,
        "created_at": format_ts(doc.created_at),
        "region": doc.region,
    }


def document_detail(doc: Document) -> dict[str, Any]:
    """`GET /v1/documents/{id}`: adds signers, sha256 and the version history."""
    return {
        **document_created(doc),
        "signers": list(doc.signers),
        "sha256": doc.sha256,
        "signed_at": format_ts(doc.signed_at) if doc.signed_at is not None else None,
        "legal_hold": doc.legal_hold,
        "versions": [
            {"version": v.version, "sha256": v.sha256, "created_at": format_ts(v.created_at)}
            for v in doc.versions
        ],
    }


def document_summary_json(doc: Document) -> bytes:
    """`document_summary(doc)` as JSON, rendered once per state of the document."""
    raw = doc.summary_json
    if raw is None:
        raw = doc.summary_json = dumps_compacted(document_summary(doc))
    return raw


def document_detail_json(doc: Document) -> bytes:
    """`document_detail(doc)` as JSON, rendered once per state of the document."""
    raw = doc.detail_json
    if raw is None:
        raw = doc.detail_json = dumps_compacted(document_detail(doc))
    return raw


def document_page_json(docs: Sequence[Document], has_more: bool, next_cursor: str | None) -> bytes:
    """`page([document_summary(d) for d in docs], has_more, next_cursor)` as JSON, joined from
    the documents' cached bytes (read inline: never empty once rendered)."""
    return b"".join(
        (
            b'{"object":"list","data":[',
            b",".join([doc.summary_json or document_summary_json(doc) for doc in docs]),
            b'],"has_more":true,"next_cursor":'
            if has_more
            else b'],"has_more":false,"next_cursor":',
            orjson.dumps(next_cursor),
            b"}",
        )
    )


def signature_completed(doc: Document, signer: str) -> dict[str, Any]:
    """Data of `signature.completed`: exactly the four fields of docs/reference/api.md, Webhooks."""
    return {"document_id": doc.id, "signer": signer, "ip_verified": True, "vault_id": doc.vault_id}


def _last_decision(workflow: Workflow) -> dict[str, str] | None:
    if workflow.last_decision is None:
        return None
    by, decision = workflow.last_decision
    return {"by": by, "decision": decision}


def workflow_created(workflow: Workflow) -> dict[str, Any]:
    """`POST /v1/workflows` answer: `{id, document_id, status, current_step}`."""
    return {
        "id": workflow.id,
        "object": "workflow",
        "document_id": workflow.document_id,
        "status": workflow.status,
        "current_step": workflow.current_step,
        "created_at": format_ts(workflow.created_at),
    }


def workflow_advanced(workflow: Workflow) -> dict[str, Any]:
    """`POST /v1/workflows/{id}/advance` answer: `{id, status, current_step, last_decision}`."""
    return {
        "id": workflow.id,
        "object": "workflow",
        "status": workflow.status,
        "current_step": workflow.current_step,
        "last_decision": _last_decision(workflow),
    }


def workflow_detail(workflow: Workflow) -> dict[str, Any]:
    """`GET /v1/workflows/{id}`: every step with its decision history."""
    return {
        **workflow_created(workflow),
        "last_decision": _last_decision(workflow),
        "steps": [
            {
                "assignee": step.assignee,
                "condition": step.condition,
                "decision": step.decision,
                "decided_at": format_ts(step.decided_at) if step.decided_at is not None else None,
                "comment": step.comment,
            }
            for step in workflow.steps
        ],
    }


def export_job(job: ExportJob, download_url: str | None = None) -> dict[str, Any]:
    """An audit export job; `download_url` and `expires_at` once it is completed."""
    body: dict[str, Any] = {
        "id": job.id,
        "object": "audit_export",
        "status": job.status,
        "format": job.format,
        "period": job.period,
        "created_at": format_ts(job.created_at),
        "completed_at": None,
        "download_url": None,
        "expires_at": None,
    }
    if job.completed_at is not None and job.expires_at is not None:
        body["completed_at"] = format_ts(job.completed_at)
        body["download_url"] = download_url
        body["expires_at"] = format_ts(job.expires_at)
    return body


def deleted(ident: str, kind: str) -> dict[str, Any]:
    """Answer of a delete: `{id, deleted: true}`."""
    return {"id": ident, "object": kind, "deleted": True}


def listing(data: list[dict[str, Any]]) -> dict[str, Any]:
    """A list envelope without pagination."""
    return {"object": "list", "data": data}


def page(data: list[dict[str, Any]], has_more: bool, next_cursor: str | None) -> dict[str, Any]:
    """A paginated list envelope."""
    return {"object": "list", "data": data, "has_more": has_more, "next_cursor": next_cursor}
