"""A world in a snapshot: its vaults, documents and workflows region by region, and its audit
chains, with the seed's share written as a reference.

A world the seed built starts with the seed's objects (shared by every world, never changed:
a world copies one before changing it) and appends its own. So each region's list of vaults,
documents and workflows is written in its order as runs of the seed's list, `{"$seeded":
[from, to]}`, and the world's own records: a copy that replaced a seeded object at its
position, or one added at the end. Reading it installs the seed's indexes (one copy each, as
building the world did) and puts the records in place, so a world of a 100,000-document seed
costs a snapshot only what changed.

An audit chain is written as the seeded history it continues (`{"owner", "reference"}`: the
history is made again from the seed, as on first use) and the events written since.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mockserver.audit.chain import EMPTY_LOG, AuditChain
from mockserver.core.containers import DictOf, ListOf
from mockserver.core.kinds import Bool, Bytes, Invalid, Kind, Reader, Writer
from mockserver.domain.models import REGIONS, Document, Vault, Workflow
from mockserver.domain.store import RegionData, World, _swap
from mockserver.engine.snapshots.kinds import Rec
from mockserver.engine.snapshots.records import (
    COUNT,
    ENVIRONMENT,
    STREAM,
    TEXT,
    TIME,
    Spec,
    record,
)
from mockserver.seeds.world import RegionHistory, pristine_of, seeded_history

_VAULT, _DOCUMENT, _WORKFLOW = Rec("Vault"), Rec("Document"), Rec("Workflow")
_EVENTS = ListOf(Rec("AuditEvent"))
_INDEX = DictOf(TEXT, ListOf(COUNT))
_OVERRIDES = DictOf(COUNT, Bytes())


def _runs(mine: list[Any], seeded: list[Any], kind: Kind, out: Writer) -> list[Any]:
    """`mine` as runs of `seeded` (the same objects at the same places) and records."""
    items: list[Any] = []
    start = None
    for index, item in enumerate(mine):
        if index < len(seeded) and item is seeded[index]:
            if start is None:
                start = index
            continue
        if start is not None:
            items.append({"$seeded": [start, index]})
            start = None
        items.append(kind.encode(item, out))
    if start is not None:
        items.append({"$seeded": [start, len(mine)]})
    return items


def _region(world: World, name: str, out: Writer) -> dict[str, Any]:
    region = world.regions[name]
    base = world.pristine.regions[name] if world.pristine is not None else RegionData()
    return {
        "vaults": _runs(region.vault_order, base.vault_order, _VAULT, out),
        "documents": _runs(region.doc_order, base.doc_order, _DOCUMENT, out),
        "workflows": _runs(
            list(region.workflows.values()), list(base.workflows.values()), _WORKFLOW, out
        ),
        "audit": _chain(region.audit, name, out),
    }


def _chain(chain: AuditChain, region: str, out: Writer) -> dict[str, Any]:
    source = chain.source
    if isinstance(source, RegionHistory) and source.region == region:
        seeded: Any = {"owner": source.history.owner, "reference": source.history.reference}
    elif source is None and chain._base is EMPTY_LOG:
        seeded = None
    else:
        raise TypeError("an audit chain whose seeded part no snapshot can name")
    return {
        "seeded": seeded,
        "events": _EVENTS.encode(chain.tail, out),
        "index": _INDEX.encode(chain.index, out),
        "replaced": _OVERRIDES.encode(chain.overrides, out),
    }


# -- reading -------------------------------------------------------------------------------


class _Place:
    """Reading one list of a region: where the next item goes, and what the seed has."""

    def __init__(self, name: str, seeded: list[Any]) -> None:
        self.name = name
        self.seeded = seeded
        self.position = 0


def _items(
    data: Any,
    place: _Place,
    kind: Kind,
    into: Reader,
    put: Callable[[int, Any], None],
) -> None:
    """Read a region's list: runs of the seed's list must stand where they are in it; a record
    at a seeded position replaces that object (`put(position, record)`), one past the end is
    added (`put(-1, record)`)."""
    if type(data) is not list:
        raise Invalid("must be a list")
    seeded = place.seeded
    for index, item in enumerate(data):
        try:
            if type(item) is dict and "$seeded" in item:
                run = item["$seeded"]
                if (
                    len(item) != 1
                    or type(run) is not list
                    or len(run) != 2
                    or run[0] != place.position
                    or type(run[1]) is not int
                    or not run[0] < run[1] <= len(seeded)
                ):
                    raise Invalid(
                        f"a run of the seed's {place.name} must go on from position "
                        f"{place.position}, within the seed's {len(seeded)}"
                    )
                place.position = run[1]
                continue
            made = kind.decode(item, into)
            if place.position < len(seeded):
                if made.id != seeded[place.position].id:
                    raise Invalid(
                        f"replaces the seed's {seeded[place.position].id!r} with {made.id!r}"
                    )
                put(place.position, made)
            else:
                put(-1, made)
            place.position += 1
        except Invalid as error:
            error.path.append(index)
            raise
    if place.position < len(seeded):
        raise Invalid(f"ends before the seed's {len(seeded)} {place.name}")


def _read_region(world: World, name: str, data: Any, into: Reader) -> None:
    if type(data) is not dict or data.keys() != {"vaults", "documents", "workflows", "audit"}:
        raise Invalid("must be an object of vaults, documents, workflows and audit")
    region = world.regions[name]
    base = world.pristine.regions[name] if world.pristine is not None else RegionData()

    def vault(position: int, made: Vault) -> None:
        _check_region(made.region, name)
        if position >= 0:
            region.vaults[made.id] = region.vault_order[position] = made
        elif made.id in region.vaults:
            raise Invalid(f"vault {made.id!r} is there twice")
        else:
            region.index_vault(made)

    def document(position: int, made: Document) -> None:
        _check_region(made.region, name)
        if position >= 0:
            old = region.doc_order[position]
            if (made.vault_id, made.seq) != (old.vault_id, old.seq):
                raise Invalid(f"document {made.id!r} changed its vault or 'seq'")
            region.documents[made.id] = region.doc_order[position] = made
            _swap(region.docs_by_vault[made.vault_id], old, made)
        elif made.vault_id not in region.vaults:
            raise Invalid(f"document {made.id!r} is in vault {made.vault_id!r}, not in {name}")
        elif made.id in region.documents:
            raise Invalid(f"document {made.id!r} is there twice")
        elif region.doc_order and made.seq <= region.doc_order[-1].seq:
            raise Invalid("documents must be in ascending 'seq'")
        else:
            region.index_document(made)

    def workflow(position: int, made: Workflow) -> None:
        _check_region(made.region, name)
        if position < 0 and made.id in region.workflows:
            raise Invalid(f"workflow {made.id!r} is there twice")
        if made.document_id not in region.documents:
            raise Invalid(f"workflow {made.id!r} is for {made.document_id!r}, not in {name}")
        region.workflows[made.id] = made

    for field, place, kind, put in (
        ("vaults", _Place("vaults", base.vault_order), _VAULT, vault),
        ("documents", _Place("documents", base.doc_order), _DOCUMENT, document),
        ("workflows", _Place("workflows", list(base.workflows.values())), _WORKFLOW, workflow),
    ):
        try:
            _items(data[field], place, kind, into, put)
        except Invalid as error:
            error.path.append(field)
            raise
    try:
        region.audit = _read_chain(world, name, data["audit"], into)
    except Invalid as error:
        error.path.append("audit")
        raise


def _check_region(given: str, name: str) -> None:
    if given != name:
        raise Invalid(f"is in region {given!r}, listed under {name!r}")


def _read_chain(world: World, region: str, data: Any, into: Reader) -> AuditChain:
    if type(data) is not dict or data.keys() != {"seeded", "events", "index", "replaced"}:
        raise Invalid("must be an object of seeded, events, index and replaced")
    seeded = data["seeded"]
    source = None
    if seeded is not None:
        if type(seeded) is not dict or seeded.keys() != {"owner", "reference"}:
            raise Invalid("'seeded' must be null or an object of owner and reference")
        owner = TEXT.decode(seeded["owner"], into)
        reference = TIME.decode(seeded["reference"], into)
        key = (world.account.id, world.environment)
        if world.pristine is None:
            raise Invalid("a world the seed did not build has no seeded history")
        history = seeded_history(into.context.store, key, owner, reference)
        source = RegionHistory(history, region)
    tail = _EVENTS.decode(data["events"], into)
    positions = _INDEX.decode(data["index"], into)
    if any(p >= len(tail) for found in positions.values() for p in found):
        raise Invalid("the index names an event the chain does not have")
    return AuditChain.restored(
        source, tail, dict(positions), _OVERRIDES.decode(data["replaced"], into)
    )


# -- the world record ----------------------------------------------------------------------


def _world_fields(world: World) -> dict[str, Any]:
    return {
        "account": world.account.id,
        "environment": world.environment,
        "seeded": world.pristine is not None,
        "ids": world.ids,
        "seq": world._seq,
        "changed": world._changed,
        "regions": _Regions.Of(world),
        "exports": world.exports,
        "active_workflows": world.active_workflows,
    }


class _Regions(Kind):
    """A world's regions: written from the world (they need its seed), read by `_world`."""

    class Of:
        def __init__(self, world: World) -> None:
            self.world = world

    def encode(self, value: Any, out: Writer) -> Any:
        return {name: _region(value.world, name, out) for name in REGIONS}

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or set(data) != set(REGIONS):
            raise Invalid(f"must be an object of {' and '.join(REGIONS)}")
        return data  # read by `_world`, once the world exists

    def schema(self) -> dict[str, Any]:
        run = {
            "description": "Positions [from, to) of the seed's list, unchanged.",
            "type": "object",
            "properties": {
                "$seeded": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "integer"}],
                    "minItems": 2,
                    "maxItems": 2,
                }
            },
            "required": ["$seeded"],
            "additionalProperties": False,
        }
        seeded = {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {"owner": TEXT.schema(), "reference": TIME.schema()},
                    "required": ["owner", "reference"],
                    "additionalProperties": False,
                },
            ]
        }
        audit = {
            "type": "object",
            "properties": {
                "seeded": seeded,
                "events": _EVENTS.schema(),
                "index": _INDEX.schema(),
                "replaced": _OVERRIDES.schema(),
            },
            "required": ["seeded", "events", "index", "replaced"],
            "additionalProperties": False,
        }
        lists = {
            name: {"type": "array", "items": {"anyOf": [kind.schema(), run]}}
            for name, kind in (
                ("vaults", _VAULT),
                ("documents", _DOCUMENT),
                ("workflows", _WORKFLOW),
            )
        }
        region = {
            "type": "object",
            "properties": {**lists, "audit": audit},
            "required": ["vaults", "documents", "workflows", "audit"],
            "additionalProperties": False,
        }
        return {
            "type": "object",
            "properties": dict.fromkeys(REGIONS, region),
            "required": list(REGIONS),
            "additionalProperties": False,
        }


def _world(into: Reader, values: dict[str, Any]) -> World:
    loading = into.context
    store = loading.store
    account = loading.accounts.get(values["account"])
    if account is None:
        raise Invalid(f"belongs to account {values['account']!r}, which the file does not have")
    key = (account.id, values["environment"])
    world = World(account, values["environment"], values["ids"], store.scheduler, store.listeners)
    if values["seeded"]:
        if key not in store.seed.environments:
            raise Invalid(f"is marked seeded, but this server's seed has no {key!r}")
        pristine_of(store, key).install(world)
    for name in REGIONS:
        try:
            _read_region(world, name, values["regions"][name], into)
        except Invalid as error:
            error.path += [name, "regions"]
            raise
    world._seq = values["seq"]
    world._changed = values["changed"]
    world.exports = values["exports"]
    for job_id, job in world.exports.items():
        if job.id != job_id:
            raise Invalid(f"export {job.id!r} is listed as {job_id!r}")
    world.active_workflows = values["active_workflows"]
    for doc_id, workflow_id in world.active_workflows.items():
        workflow = next(
            (
                r.workflows[workflow_id]
                for r in world.regions.values()
                if workflow_id in r.workflows
            ),
            None,
        )
        if workflow is None:
            raise Invalid(f"active workflow {workflow_id!r} of {doc_id!r} is not in the world")
        if workflow.document_id != doc_id:
            raise Invalid(
                f"active workflow {workflow_id!r} is listed for {doc_id!r}, but is "
                f"{workflow.document_id!r}'s"
            )
    return world


record(
    Spec(
        World,
        {
            "account": TEXT,
            "environment": ENVIRONMENT,
            "seeded": Bool(),
            "ids": STREAM,
            "seq": COUNT,
            "changed": Bool(),
            "regions": _Regions(),
            "exports": DictOf(TEXT, Rec("ExportJob")),
            "active_workflows": DictOf(TEXT, TEXT),
        },
        shared=True,
        make=_world,
        get=_world_fields,
    )
)
