"""How resources are shown: the JSON objects of the API, built from models.

One function per shape the spec lists, so handlers and (later) webhook payloads show a
resource the same way.
"""

from __future__ import annotations

from typing import Any

from mockserver.clock import format_ts

from .models import ENCRYPTION, Document, Vault


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


def deleted(ident: str, kind: str) -> dict[str, Any]:
    """Answer of a delete: `{id, deleted: true}`."""
    return {"id": ident, "object": kind, "deleted": True}


def listing(data: list[dict[str, Any]]) -> dict[str, Any]:
    """A list envelope without pagination."""
    return {"object": "list", "data": data}


def page(data: list[dict[str, Any]], has_more: bool, next_cursor: str | None) -> dict[str, Any]:
    """A paginated list envelope."""
    return {"object": "list", "data": data, "has_more": has_more, "next_cursor": next_cursor}
