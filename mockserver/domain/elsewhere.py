"""The not-found refusal of a lookup by id, saying where the object lives when it exists in
another region of the account (a common mistake: an `eu` id read through the `us` base URL).

Only the error path looks at the other regions, so a found object costs nothing more.
"""

from __future__ import annotations

from mockserver.core.errors import NotFound
from mockserver.domain.store import World


def not_found(
    world: World, region: str, kind: str, ident: str, *, param: str | None = None
) -> NotFound:
    """404 for the `kind` (vault, document, workflow) `ident` in `region`; its `explain` names
    the region the object lives in, if another region of the world holds it."""
    error = NotFound.resource(kind, ident, param=param)
    for other, data in world.regions.items():
        if other == region:
            continue
        found: object = None
        if kind == "vault":
            found = data.vaults.get(ident)
        elif kind == "document":
            doc = data.documents.get(ident)
            found = doc if doc is not None and not doc.deleted else None
        elif kind == "workflow":
            found = data.workflows.get(ident)
        if found is not None:
            return error.because("not_found", resource=ident, region=other, routed_region=region)
    return error
