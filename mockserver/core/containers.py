"""The kinds of value made of other kinds: optional values, lists, fixed-length tuples,
mappings, objects of named fields, and values read once the rest of the file is (`Later`).

A column of lists (`ListOf.encode_column`) is one column of all their items and how many each
list has; a list of objects (`DictOf.decode_list`) is checked as one column of keys and one of
values. An object the file may point at before it is complete (a timer inside its own delivery)
is read `Later`, once everything else is.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate, chain, islice
from typing import Any

from mockserver.core.kinds import Int, Invalid, Kind, Reader, Str, Writer, column_at

_DICT = frozenset((dict,))
_COUNT = Int()


class Opt(Kind):
    """`kind`, or null."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def encode(self, value: Any, out: Writer) -> Any:
        return None if value is None else self.kind.encode(value, out)

    def decode(self, data: Any, into: Reader) -> Any:
        return None if data is None else self.kind.decode(data, into)

    def schema(self) -> dict[str, Any]:
        return {"oneOf": [{"type": "null"}, self.kind.schema()]}

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        """The values that are not null, read as one list of `kind`, put back in place."""
        if type(data) is not list:
            raise Invalid("must be a list")
        present = [item for item in data if item is not None]
        try:
            made = self.kind.decode_list(present, into)
        except Invalid as error:
            if error.path and type(error.path[-1]) is int:  # a place in `present`: in `data`
                places = [n for n, item in enumerate(data) if item is not None]
                error.path[-1] = places[error.path[-1]]
            raise
        if made is present:
            return data
        rest = iter(made)
        return [None if item is None else next(rest) for item in data]


class ListOf(Kind):
    """A list of `item`, made into `make` (a list, tuple, deque, set...). `ordered`: written
    in sorted order (sets, whose order means nothing, give the same bytes every time)."""

    def __init__(
        self, item: Kind, make: Callable[[list[Any]], Any] = list, *, ordered: bool = False
    ) -> None:
        self.item, self.make, self.ordered = item, make, ordered

    def encode(self, value: Any, out: Writer) -> Any:
        items = sorted(value) if self.ordered else value
        return [self.item.encode(item, out) for item in items]

    def decode(self, data: Any, into: Reader) -> Any:
        return self.make(self.item.decode_list(data, into))

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": self.item.schema()}

    def encode_column(self, values: list[Any], out: Writer) -> Any:
        """The lists end to end, as one column of `item`, and how many items each has."""
        items = [item for value in values for item in (sorted(value) if self.ordered else value)]
        return {
            "counts": [len(value) for value in values],
            "items": self.item.encode_column(items, out),
        }

    def decode_column(self, data: Any, into: Reader) -> list[Any]:
        if type(data) is not dict or data.keys() != {"counts", "items"}:
            raise Invalid("must be an object of counts and items")
        counts = column_at(data, "counts", _COUNT, into)
        items = column_at(data, "items", self.item, into)
        if sum(counts) != len(items):
            raise Invalid("its counts do not add up to its items")
        ends = list(accumulate(counts))
        lists = list(map(items.__getitem__, map(slice, [0, *ends[:-1]], ends)))
        return lists if self.make is list else list(map(self.make, lists))


class Tuple(Kind):
    """A fixed-length tuple, one kind per place; a JSON list."""

    def __init__(self, *items: Kind) -> None:
        self.items = items

    def encode(self, value: Any, out: Writer) -> Any:
        return [kind.encode(item, out) for kind, item in zip(self.items, value, strict=True)]

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not list or len(data) != len(self.items):
            raise Invalid(f"must be a list of {len(self.items)} values")
        made = []
        for index, (kind, item) in enumerate(zip(self.items, data, strict=True)):
            try:
                made.append(kind.decode(item, into))
            except Invalid as error:
                error.path.append(index)
                raise
        return tuple(made)

    def schema(self) -> dict[str, Any]:
        count = len(self.items)
        return {
            "type": "array",
            "prefixItems": [kind.schema() for kind in self.items],
            "minItems": count,
            "maxItems": count,
        }


class DictOf(Kind):
    """A mapping, in its order: a JSON object when keys are strings, else a list of
    `[key, value]` pairs."""

    def __init__(self, key: Kind, value: Kind, make: Callable[[Any], Any] = dict) -> None:
        self.key, self.value, self.make = key, value, make
        self.pairs = not isinstance(key, Str)
        self._pair = Tuple(key, value)

    def encode(self, value: Any, out: Writer) -> Any:
        if self.pairs:
            return [[self.key.encode(k, out), self.value.encode(v, out)] for k, v in value.items()]
        return {k: self.value.encode(v, out) for k, v in value.items()}

    def decode(self, data: Any, into: Reader) -> Any:
        if self.pairs:
            if type(data) is not list:
                raise Invalid("must be a list of [key, value] pairs")
            made = {}
            for index, pair in enumerate(data):
                try:
                    key, value = self._pair.decode(pair, into)
                except Invalid as error:
                    error.path.append(index)
                    raise
                made[key] = value
            return self.make(made)
        if type(data) is not dict:
            raise Invalid("must be an object")
        check, decode = self.key.decode, self.value.decode
        made = {}
        for key, value in data.items():
            try:
                check(key, into)
                made[key] = decode(value, into)
            except Invalid as error:
                error.path.append(key)
                raise
        return self.make(made)

    def schema(self) -> dict[str, Any]:
        if self.pairs:
            return {"type": "array", "items": self._pair.schema()}
        return {"type": "object", "additionalProperties": self.value.schema()}

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        """Objects: their keys, then their values, checked as one column each."""
        if self.pairs or type(data) is not list or not _DICT.issuperset(map(type, data)):
            return super().decode_list(data, into)
        try:
            self.key.decode_list(list(chain.from_iterable(data)), into)
            values = list(chain.from_iterable(map(dict.values, data)))
            made = self.value.decode_list(values, into)
        except Invalid:
            return super().decode_list(data, into)  # names the place
        if made is values and self.make is dict:
            return data
        rest, make = iter(made), self.make
        return [make(dict(zip(item, islice(rest, len(item)), strict=True))) for item in data]


class Later(Kind):
    """A value written and read once the rest of the file is (it may point at an object still
    being read where it stands: a delivery's timer points back at the delivery). It decodes
    to its raw JSON; `resolve` reads it at the end and hands the value over. A value of None
    or a list is written at once if it is (holders stand for the rest)."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def encode(self, value: Any, out: Writer) -> Any:
        if value is None:
            return None
        holder: Any = [] if isinstance(value, list) else {}

        def step() -> None:
            written = self.kind.encode(value, out)
            if isinstance(holder, list):
                holder.extend(written)
            else:
                holder.update(written)

        out.later.append(step)
        return holder

    def decode(self, data: Any, into: Reader) -> Any:
        return data  # raw: `resolve` reads it at the end

    def resolve(self, data: Any, into: Reader, done: Callable[[Any], None], where: str) -> None:
        """Read `data` at the end, then hand the value to `done`; `where` names it in errors."""

        def step() -> None:
            try:
                done(self.kind.decode(data, into))
            except Invalid as error:
                error.path.append(where)
                raise

        into.later.append(step)

    def schema(self) -> dict[str, Any]:
        return self.kind.schema()


class Obj(Kind):
    """A JSON object of exactly these fields, read in this order into a dict."""

    def __init__(self, fields: dict[str, Kind], description: str = "") -> None:
        self.fields = fields
        self.description = description

    def encode(self, value: Any, out: Writer) -> Any:
        return {name: kind.encode(value[name], out) for name, kind in self.fields.items()}

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or data.keys() != self.fields.keys():
            raise Invalid(f"must be an object of {', '.join(self.fields)}")
        made = {}
        for name, kind in self.fields.items():
            try:
                made[name] = kind.decode(data[name], into)
            except Invalid as error:
                error.path.append(name)
                raise
        return made

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "object",
            "properties": {name: kind.schema() for name, kind in self.fields.items()},
            "required": list(self.fields),
            "additionalProperties": False,
        }
        if self.description:
            out["description"] = self.description
        return out
