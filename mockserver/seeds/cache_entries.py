"""What the seed cache keeps, as data: a validated seed, and a big seed's seeded audit history.

A seed is the JSON object of its parts; the vaults, documents, workflows and webhook endpoints
of each (account, environment) are written a column per field (`core.columns`), so that a
100,000-document seed is read in a few hundred milliseconds: each column is checked whole, and
the objects are made by their own dataclasses. Strings that seeds repeat (addresses, metadata
values, conditions) are read interned, shared as the seed's builder shares them. A history is,
per region, the columns of its sealed log (`SeededLog.state`): times, types, actors, resources,
the ids as one string, the hashes as hex, the index as a column of positions.

Reading raises `Invalid` for anything not of this shape; nothing in an entry names a class.
"""

from __future__ import annotations

import binascii
import dataclasses
import sys
from array import array
from itertools import accumulate, chain
from typing import Any, TypeAlias

from mockserver.audit.log import ID_WIDTH
from mockserver.core.columns import Columns, Packed, Record, Shared
from mockserver.core.containers import DictOf, ListOf, Obj, Opt, Tuple
from mockserver.core.kinds import MAX_INT, Bool, Int, Invalid, Kind, Reader, Str, Writer, column_at
from mockserver.domain.models import (
    DECISIONS,
    DOCUMENT_STATUSES,
    ENVIRONMENTS,
    REGIONS,
    WORKFLOW_STATUSES,
    Account,
    ApiKey,
    Document,
    DocumentVersion,
    EndpointSeed,
    EnvironmentSeed,
    Limits,
    Member,
    OAuthClient,
    SeedData,
    User,
    Vault,
    Workflow,
    WorkflowStep,
)

TEXT = Str()
SHARED = Shared(TEXT)  # few values, repeated all through a seed: addresses, vault ids
COUNT = Int()
SECONDS = Int(-MAX_INT, MAX_INT)  # seeded times, before the shift to the clock
REGION = Shared(Str(REGIONS))
STRINGS = ListOf(TEXT, tuple)
_METADATA_TYPES = frozenset((str, int, bool))


class MetadataValue(Kind):
    """A metadata value: a string, a whole number or a bool."""

    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) not in _METADATA_TYPES:
            raise Invalid("must be a string, a whole number or true or false")
        return data

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        if type(data) is list and _METADATA_TYPES.issuperset(map(type, data)):
            return data
        return super().decode_list(data, into)

    def schema(self) -> dict[str, Any]:
        return {"type": ["string", "integer", "boolean"]}


class Metadata(DictOf):
    """A document's metadata; a column of them has its strings interned in place, as the
    seed's builder keeps them (one object for each repeated value)."""

    def __init__(self) -> None:
        super().__init__(TEXT, MetadataValue())

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        made = super().decode_list(data, into)
        for metadata in made:
            for key, value in metadata.items():
                if type(value) is str:
                    metadata[key] = sys.intern(value)
        return made


_USER = Record(User, {"email": SHARED, "name": TEXT, "permissions": STRINGS})
_ACCOUNT = Record(
    Account,
    {"id": TEXT, "name": TEXT, "default_region": REGION, "users": ListOf(_USER, tuple)},
)
_KEY = Record(
    ApiKey,
    {
        "key": TEXT,
        "account_id": TEXT,
        "environment": Shared(Str(ENVIRONMENTS)),
        "scopes": ListOf(TEXT, frozenset, ordered=True),
        "owner": SHARED,
        "revoked": Bool(),
        "rate_limit": COUNT,
        "burst": COUNT,
    },
)
_CLIENT = Record(
    OAuthClient,
    {
        "client_id": TEXT,
        "client_secret": TEXT,
        "account_id": TEXT,
        "redirect_uris": STRINGS,
        "name": TEXT,
        "token_lifetime": COUNT,
    },
)
_LIMITS = Record(Limits, {field.name: COUNT for field in dataclasses.fields(Limits)})
_VAULT = Record(
    Vault,
    {
        "id": TEXT,
        "name": TEXT,
        "region": REGION,
        "created_at": SECONDS,
        "members": ListOf(Record(Member, {"email": SHARED, "role": SHARED})),
        "lock_after": COUNT,
        "seq": COUNT,
    },
)
_DOCUMENT = Record(
    Document,
    {
        "id": TEXT,
        "vault_id": SHARED,
        "region": REGION,
        "title": TEXT,
        "status": Shared(Str(DOCUMENT_STATUSES)),
        "created_at": SECONDS,
        "sha256": TEXT,
        "metadata": Metadata(),
        "version": Int(1),
        "versions": ListOf(
            Record(DocumentVersion, {"version": Int(1), "sha256": TEXT, "created_at": SECONDS})
        ),
        "signers": ListOf(SHARED),
        "legal_hold": Bool(),
        "signed_at": Opt(SECONDS),
        "deleted": Bool(),
        "seq": COUNT,
    },
)
_STEP = Record(
    WorkflowStep,
    {
        "assignee": SHARED,
        "condition": Shared(Opt(TEXT)),
        "decision": Shared(Opt(Str((*DECISIONS, "skipped")))),
        "decided_at": Opt(SECONDS),
        "comment": Shared(Opt(TEXT)),
    },
)
_WORKFLOW = Record(
    Workflow,
    {
        "id": TEXT,
        "document_id": TEXT,
        "region": REGION,
        "status": Shared(Str(WORKFLOW_STATUSES)),
        "current_step": Int(1),
        "created_at": SECONDS,
        "steps": ListOf(_STEP),
        "last_decision": Shared(Opt(Tuple(TEXT, Str(DECISIONS)))),
        "seq": COUNT,
    },
)
_ENDPOINT = Record(
    EndpointSeed,
    {"id": TEXT, "url": TEXT, "events": STRINGS, "secret": TEXT, "created_at": SECONDS},
)
_ENVIRONMENT = Record(
    EnvironmentSeed,
    {
        "vaults": Columns(_VAULT),
        "documents": Columns(_DOCUMENT),
        "workflows": Columns(_WORKFLOW),
        "webhook_endpoints": Columns(_ENDPOINT),
    },
)
_SEED = Obj(
    {
        "accounts": DictOf(TEXT, _ACCOUNT),
        "keys": DictOf(TEXT, _KEY),
        "oauth_clients": DictOf(TEXT, _CLIENT),
        "environments": DictOf(Tuple(TEXT, Str(ENVIRONMENTS)), _ENVIRONMENT),
        "limits": _LIMITS,
        "reference_time": Opt(SECONDS),
    }
)


def encode_seed(seed: SeedData) -> dict[str, Any]:
    """The seed as JSON-ready data (less its file name and cache digest, which the cache
    sets on reading)."""
    parts = {name: getattr(seed, name) for name in _SEED.fields}
    encoded: dict[str, Any] = _SEED.encode(parts, Writer())
    return encoded


def decode_seed(data: Any, source: str) -> SeedData:
    """The seed `encode_seed` wrote, read from `source`; Invalid if it is not one."""
    return SeedData(source, **_SEED.decode(data, Reader(None)))


# -- seeded histories -------------------------------------------------------------------------

_REGION_FIELDS = frozenset(
    ("at", "types", "actors", "resources", "ids", "digests", "index", "head", "sources", "steps")
)
_TIMES, _NUMBERS = Packed("q"), Packed("I")
# Per region: a sealed log's state, and each event's object and step (`SeededHistory`).
Regions: TypeAlias = "dict[str, tuple[tuple[Any, ...], array[int], array[int]]]"


def encode_history(regions: Regions) -> Any:
    """Each region's sealed log state (`SeededLog.state`) with, per event, the object whose
    life it is and which event of that life (`sources`, `steps`), as data."""
    out, writer = {}, Writer()
    for region, (state, sources, steps) in regions.items():
        at, types, actors, resources, ids, digests, index, head = state
        positions = list(index.values())
        out[region] = {
            "at": _TIMES.encode(at, writer),
            "types": SHARED.encode_column(types, writer),
            "actors": SHARED.encode_column(actors, writer),
            "resources": SHARED.encode_column(resources, writer),
            "ids": ids,
            "digests": binascii.b2a_base64(digests, newline=False).decode("ascii"),
            "index": {
                "ids": list(index),
                "counts": _NUMBERS.encode(array("I", map(len, positions)), writer),
                "positions": _NUMBERS.encode(array("I", chain.from_iterable(positions)), writer),
            },
            "head": head,
            "sources": _NUMBERS.encode(sources, writer),
            "steps": _NUMBERS.encode(steps, writer),
        }
    return out


def decode_history(data: Any, objects: int) -> Regions:
    """What `encode_history` wrote, for a seed of `objects` vaults and documents; Invalid if
    it is not that."""
    if type(data) is not dict or data.keys() != set(REGIONS):
        raise Invalid(f"must be an object of {', '.join(REGIONS)}")
    out = {}
    for region in REGIONS:
        try:
            out[region] = _region(data[region], objects)
        except Invalid as error:
            error.path.append(region)
            raise
    return out


def _region(data: Any, objects: int) -> tuple[tuple[Any, ...], array[int], array[int]]:
    if type(data) is not dict or data.keys() != _REGION_FIELDS:
        raise Invalid(f"must be an object of {', '.join(sorted(_REGION_FIELDS))}")
    into = Reader(None)
    at = _numbers(data, "at", _TIMES, into)
    count = len(at)
    columns = [column_at(data, name, SHARED, into) for name in ("types", "actors", "resources")]
    sources = _numbers(data, "sources", Packed("I", objects - 1), into)
    steps = _numbers(data, "steps", _NUMBERS, into)
    ids, digests, head = data["ids"], _digests(data["digests"]), data["head"]
    if any(len(column) != count for column in (*columns, sources, steps)):
        raise Invalid("its columns are not all as long")
    if type(ids) is not str or len(ids) != ID_WIDTH * count:
        raise Invalid(f"'ids' must be {ID_WIDTH} characters an event")
    if len(digests) != 32 * count:
        raise Invalid("'digests' must be 32 bytes an event")
    if type(head) is not str or len(head) != 64:
        raise Invalid("'head' must be 64 hex digits")
    index = _index(data["index"], count, into)
    state = (at, *columns, ids, digests, index, head)
    return state, sources, steps


def _numbers(data: dict[str, Any], name: str, kind: Packed, into: Reader) -> array[int]:
    try:
        numbers: array[int] = kind.decode(data[name], into)
    except Invalid as error:
        error.path.append(name)
        raise
    return numbers


def _digests(data: Any) -> bytearray:
    try:
        return bytearray(binascii.a2b_base64(data, strict_mode=True))
    except (binascii.Error, TypeError, ValueError):
        raise Invalid("'digests' must be base64") from None


def _index(data: Any, count: int, into: Reader) -> dict[str, array[int]]:
    """Resource id -> the positions of its events, from the ids, how many positions each has,
    and all the positions end to end."""
    if type(data) is not dict or data.keys() != {"ids", "counts", "positions"}:
        raise Invalid("'index' must be an object of ids, counts and positions")
    ids = column_at(data, "ids", TEXT, into)
    counts = _numbers(data, "counts", _NUMBERS, into)
    positions = _numbers(data, "positions", Packed("I", count - 1), into)
    if len(counts) != len(ids) or sum(counts) != len(positions):
        raise Invalid("'index' must have a count for each id, adding up to its positions")
    ends = list(accumulate(counts))
    return dict(
        zip(ids, map(positions.__getitem__, map(slice, [0, *ends[:-1]], ends)), strict=True)
    )
