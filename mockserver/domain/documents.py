"""Document operations: create, retrieve, list, soft delete, signing, locking and legal hold.

Every write records exactly one audit event whose data is the document as retrieve shows it.
A signed document is locked by the system `lock_after` seconds (its vault's) after signing.
Every change goes to `world.writable_document(doc)`, never to a document as found: seeded
documents are shared by the worlds, and the rendered JSON kept beside a document must go.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mockserver.audit.chain import SYSTEM
from mockserver.core.errors import Conflict
from mockserver.domain import validation as v
from mockserver.domain import vaults, views
from mockserver.domain.elsewhere import not_found
from mockserver.domain.models import DOCUMENT_STATUSES, Document, DocumentVersion, Limits
from mockserver.domain.pagination import CursorCodec, newest_first
from mockserver.domain.store import World

PAGES_KEPT = 256  # rendered pages a region keeps (a deep walk renders one per page)


def record(world: World, doc: Document, type: str, actor: str, at: int) -> None:
    """The audit event of a document change."""
    world.record(doc.region, type, actor, at, doc.id, (doc.vault_id,), views.document_detail(doc))


def create(
    world: World,
    region: str,
    body: Mapping[str, Any],
    limits: Limits,
    actor: str,
    now: int,
    *,
    new_id: str | None = None,
) -> Document:
    """A new draft, version 1, in a vault of the routed region; `new_id` fixes the id."""
    title = v.string(v.required(body, "title"), "title", max_len=limits.title_max)
    vault_id = v.string(v.required(body, "vault_id"), "vault_id", max_len=255)
    raw_metadata = body.get("metadata")
    metadata = {} if raw_metadata is None else v.metadata(raw_metadata, limits)
    vault = vaults.get(world, region, vault_id, param="vault_id")
    doc_id = new_id or world.new_id("doc_")
    digest = world.ids.sha256(doc_id)
    doc = Document(
        id=doc_id,
        vault_id=vault.id,
        region=region,
        title=title,
        status="draft",
        created_at=now,
        sha256=digest,
        metadata=metadata,
        versions=[DocumentVersion(version=1, sha256=digest, created_at=now)],
    )
    world.add_document(doc)
    record(world, doc, "document.created", actor, now)
    return doc


def get(world: World, region: str, doc_id: str, *, param: str | None = None) -> Document:
    """The document if it lives in `region` and is not deleted, else 404."""
    doc = world.regions[region].documents.get(doc_id)
    if doc is None or doc.deleted:
        raise not_found(world, region, "document", doc_id, param=param)
    return doc


def delete(world: World, region: str, doc_id: str, actor: str, now: int) -> Document:
    """Soft delete; documents under legal hold or retention answer 409."""
    doc = get(world, region, doc_id)
    if doc.legal_hold:
        raise Conflict(f"Document {doc.id} is under legal hold and cannot be deleted.").because(
            "state", resource=doc.id, current=doc.status, hold=True
        )
    if doc.under_retention:
        raise Conflict(
            f"Document {doc.id} is {doc.status} and under retention; it cannot be deleted."
        ).because("state", resource=doc.id, current=doc.status, retention=True)
    doc = world.writable_document(doc)
    doc.deleted = True
    record(world, doc, "document.deleted", actor, now)
    return doc


def move(world: World, doc: Document, status: str, actor: str, at: int) -> Document:
    """A state-machine transition of the document, with its audit event; the changed copy."""
    doc = world.writable_document(doc)
    doc.status = status
    record(world, doc, f"document.{status}", actor, at)
    return doc


def sign(world: World, doc: Document, signers: list[str], actor: str, at: int) -> Document:
    """in_review -> signed; the system locks it after its vault's lock_after."""
    doc = world.writable_document(doc)
    doc.signers = signers
    doc.signed_at = at
    doc = move(world, doc, "signed", actor, at)
    schedule_lock(world, doc)
    return doc


def schedule_lock(world: World, doc: Document, due: int | None = None) -> None:
    """Lock the signed document when the clock passes `due`, signed_at + lock_after."""
    if due is None:
        assert doc.signed_at is not None
        due = doc.signed_at + world.regions[doc.region].vaults[doc.vault_id].lock_after
    world.scheduler.at(due, LockTimer(world, doc.region, doc.id))


class LockTimer:
    """The lock timer's action, as an object rather than a closure so that a snapshot can
    save it with the world it belongs to. It names the document by region and id: the lock
    applies to whatever object is the document when it runs."""

    __slots__ = ("doc_id", "region", "world")

    def __init__(self, world: World, region: str, doc_id: str) -> None:
        self.world = world
        self.region = region
        self.doc_id = doc_id

    def __call__(self, at: int) -> None:
        lock(self.world, self.world.regions[self.region].documents[self.doc_id], at)


def lock(world: World, doc: Document, at: int) -> None:
    """signed -> locked, by the system (on the world's current object for `doc`)."""
    doc = world.regions[doc.region].documents[doc.id]
    if doc.status == "signed" and not doc.deleted:
        move(world, doc, "locked", SYSTEM, at)


def set_legal_hold(world: World, doc: Document, on: bool, at: int) -> Document:
    """Place or release a legal hold (a control-plane action, audited as the system); the
    document as it is now."""
    doc = world.regions[doc.region].documents[doc.id]
    if doc.legal_hold != on:
        doc = world.writable_document(doc)
        doc.legal_hold = on
        record(
            world,
            doc,
            "document.legal_hold_placed" if on else "document.legal_hold_released",
            SYSTEM,
            at,
        )
    return doc


def page_json(
    world: World,
    region: str,
    query: dict[str, str],
    cursors: CursorCodec,
) -> bytes:
    """A page of documents newest first, filtered by vault and status, as JSON (the list's
    answer). The query is checked every time (422, 404); the page is rendered once and kept
    until a document of the region changes (see `RegionData.pages`): a cursor names a position
    and is the same for the same position, so a page is a function of the query and the data.
    """
    status = query.get("status")
    if status is not None:
        v.choice(status, "status", DOCUMENT_STATUSES)
    limit = v.limit(query.get("limit"))
    cursor = query.get("cursor")
    before = cursors.decode(cursor) if cursor is not None else None
    vault_id = query.get("vault_id")
    data = world.regions[region]
    items = data.doc_order
    if vault_id is not None:
        vault_id = vaults.get(world, region, vault_id, param="vault_id").id
        items = data.docs_by_vault[vault_id]
    key = (vault_id, status, limit, before)
    raw = data.pages.get(key)
    if raw is None:
        page, has_more = newest_first(items, limit=limit, before=before, status=status)
        next_cursor = cursors.encode(page[-1].seq) if has_more else None
        raw = views.document_page_json(page, has_more, next_cursor)
        if len(data.pages) >= PAGES_KEPT:
            data.pages.clear()
        data.pages[key] = raw
    return raw
