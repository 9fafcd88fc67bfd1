"""Vault operations: create within the routed region, list, retrieve."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mockserver.core.errors import ValidationError
from mockserver.domain import validation as v
from mockserver.domain import views
from mockserver.domain.elsewhere import not_found
from mockserver.domain.models import REGIONS, Limits, Member, Vault
from mockserver.domain.store import World


def create(
    world: World,
    region: str,
    body: Mapping[str, Any],
    limits: Limits,
    actor: str,
    now: int,
    *,
    new_id: str | None = None,
) -> Vault:
    """A new vault in `region`; its creator is the owner and listed members join as members.
    `new_id` fixes the id (scenarios name the objects they add)."""
    name = v.string(v.required(body, "name"), "name", max_len=limits.name_max)
    requested = v.choice(v.required(body, "region"), "region", REGIONS)
    if requested != region:
        raise ValidationError(
            f"This request is routed to the '{region}' region, so the vault's region must be "
            f"'{region}'. Create '{requested}' vaults through the {requested} base URL.",
            param="region",
        )
    members = [Member(email=actor, role="owner")]
    raw = body.get("members")
    if raw is not None:
        seen = {actor}
        for i, item in enumerate(v.array(raw, "members", max_items=limits.members_max)):
            address = v.email(item, f"members[{i}]")
            if address not in seen:
                seen.add(address)
                members.append(Member(email=address, role="member"))
    vault = Vault(
        id=new_id or world.new_id("vault_"),
        name=name,
        region=region,
        created_at=now,
        members=members,
    )
    world.add_vault(vault)
    world.record(region, "vault.created", actor, now, vault.id, (), views.vault_created(vault))
    return vault


def get(world: World, region: str, vault_id: str, *, param: str | None = None) -> Vault:
    """The vault if it lives in `region`, else 404."""
    vault = world.regions[region].vaults.get(vault_id)
    if vault is None:
        raise not_found(world, region, "vault", vault_id, param=param)
    return vault


def listing(world: World, region: str) -> list[Vault]:
    """Every vault of the region, newest first."""
    return list(reversed(world.regions[region].vault_order))


def document_count(world: World, vault: Vault) -> int:
    """Documents in the vault that are not deleted."""
    docs = world.regions[vault.region].docs_by_vault.get(vault.id, [])
    return sum(1 for doc in docs if not doc.deleted)
