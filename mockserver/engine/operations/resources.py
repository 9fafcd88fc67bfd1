"""Operations of the core resources: whoami, vaults and documents."""

from __future__ import annotations

import orjson

from mockserver.domain import documents, vaults, views
from mockserver.engine.calls import Answer, Call


def whoami(call: Call) -> Answer:
    principal, world = call.caller()
    return Answer(
        orjson.dumps(
            {
                "account_id": principal.account_id,
                "region": world.account.default_region,
                "environment": principal.environment,
                "scopes": sorted(principal.scopes),
                "rate_limit": principal.rate_limit,
            }
        )
    )


def list_vaults(call: Call) -> Answer:
    _, world = call.caller()
    items = vaults.listing(world, call.region)
    return Answer(orjson.dumps(views.listing([views.vault_summary(v) for v in items])))


def create_vault(call: Call) -> Answer:
    principal, world = call.caller()
    vault = vaults.create(
        world, call.region, call.body, call.store.limits, principal.actor, call.now()
    )
    return Answer(orjson.dumps(views.vault_created(vault)), 201)


def get_vault(call: Call) -> Answer:
    _, world = call.caller()
    vault = vaults.get(world, call.region, call.params["vault_id"])
    return Answer(orjson.dumps(views.vault_detail(vault, vaults.document_count(world, vault))))


def list_documents(call: Call) -> Answer:
    _, world = call.caller()
    page = documents.page_json(world, call.region, call.query, call.store.cursors)
    return Answer(page, kept=True)


def create_document(call: Call) -> Answer:
    principal, world = call.caller()
    doc = documents.create(
        world, call.region, call.body, call.store.limits, principal.actor, call.now()
    )
    return Answer(orjson.dumps(views.document_created(doc)), 201)


def get_document(call: Call) -> Answer:
    _, world = call.caller()
    doc = documents.get(world, call.region, call.params["doc_id"])
    return Answer(views.document_detail_json(doc), kept=True)


def delete_document(call: Call) -> Answer:
    principal, world = call.caller()
    doc = documents.delete(world, call.region, call.params["doc_id"], principal.actor, call.now())
    return Answer(orjson.dumps(views.deleted(doc.id, "document")))
