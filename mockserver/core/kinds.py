"""The kinds of value a data file holds (a snapshot, a seed cache entry), each with its JSON
form, its check and its schema.

A kind turns a Python value into JSON (`encode`), checks a JSON value from a file and turns it
back (`decode`, raising `Invalid` with what is wrong), and describes itself as JSON Schema
(`schema`). Nothing here looks up a class by a name from the file: the reader says what each
place holds, and objects are built by the code that declares it. The snapshot's records, known
by a tag, are `engine/snapshots/kinds.Rec`.

An object the file may point at before it is complete (a timer inside its own delivery) is read
`Later`, once everything else is.

A list of many values of one kind (the titles of 100,000 documents) is read whole
(`decode_list`): the plain kinds check it in a few passes the interpreter runs in C (the set of
its types, its least and greatest values) and hand it back unchanged; only a list that fails is
read item by item, to say where. A column (`encode_column`, `decode_column`) is such a list,
but for the kinds that pack theirs: a column of lists is one column of all their items and
their counts, and one of records (`columns.Record`) a column per field.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable, Iterable
from itertools import accumulate, chain, islice
from typing import Any

MAX_INT = 2**63 - 1
MAX_STR = 1 << 24  # characters of any one string
MAX_DEPTH = 32  # nesting of free-form JSON (metadata, scenario bodies)
_INT, _STR, _BOOL = frozenset((int,)), frozenset((str,)), frozenset((bool,))
_DICT = frozenset((dict,))
_SCALARS = frozenset((str, int, bool, type(None)))  # free-form JSON with nothing to check


class Invalid(Exception):
    """A value in a data file that is not what its place needs; `path` says where."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[str | int] = []

    def where(self) -> str:
        """The place as `state.worlds[0].regions.us`."""
        out = ""
        for part in reversed(self.path):
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
        return out or "file"


class Writer:
    """What encoding one file remembers: the numbers of shared records, and the values
    written last (`Later`), in the order a reader reads them."""

    __slots__ = ("later", "numbers")

    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}
        self.later: list[Callable[[], None]] = []

    def finish(self) -> None:
        """Write the values put off (`Later`), and those they put off in turn."""
        for step in self.later:
            step()
        self.later = []


class Reader:
    """What decoding one file needs: the records read so far by number, the reads put
    off until the end, and `context`, what records take from the loading sandbox."""

    __slots__ = ("context", "later", "objects")

    def __init__(self, context: Any) -> None:
        self.objects: dict[int, Any] = {}
        self.later: list[Callable[[], None]] = []
        self.context = context

    def finish(self) -> None:
        """Do the reads put off (`Later`)."""
        for step in self.later:
            step()
        self.later = []


class Kind:
    """One kind of value; subclasses say how it is written, read and described."""

    def encode(self, value: Any, out: Writer) -> Any:
        raise NotImplementedError

    def decode(self, data: Any, into: Reader) -> Any:
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        """A JSON list of values of this kind, checked and read. A kind whose values need no
        change may hand back `data` itself."""
        if type(data) is not list:
            raise Invalid("must be a list")
        decode, made = self.decode, []
        for index, item in enumerate(data):
            try:
                made.append(decode(item, into))
            except Invalid as error:
                error.path.append(index)
                raise
        return made

    def encode_column(self, values: list[Any], out: Writer) -> Any:
        """Many values of this kind as one JSON value, a column: the list of them, unless the
        kind packs them (`ListOf`, `columns.Record`)."""
        return [self.encode(value, out) for value in values]

    def decode_column(self, data: Any, into: Reader) -> list[Any]:
        """What `encode_column` wrote, checked and read."""
        return self.decode_list(data, into)


class Int(Kind):
    """A whole number from `lo` to `hi`."""

    def __init__(self, lo: int = 0, hi: int = MAX_INT) -> None:
        self.lo, self.hi = lo, hi

    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not int or not self.lo <= data <= self.hi:
            raise Invalid(f"must be a whole number from {self.lo} to {self.hi}")
        return data

    def schema(self) -> dict[str, Any]:
        return {"type": "integer", "minimum": self.lo, "maximum": self.hi}

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        if type(data) is list and _INT.issuperset(map(type, data)):
            if not data or (self.lo <= min(data) and max(data) <= self.hi):
                return data
        return super().decode_list(data, into)  # names the first that is not


_COUNT = Int()


class Num(Kind):
    """A finite number (seconds, perhaps with a fraction), read as written: an int or a
    float."""

    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) not in (int, float) or not math.isfinite(data) or abs(data) > 2**53:
            raise Invalid("must be a finite number")
        return data

    def schema(self) -> dict[str, Any]:
        return {"type": "number", "minimum": -(2**53), "maximum": 2**53}


class Str(Kind):
    """A string; `choices`: one of these."""

    def __init__(self, choices: Iterable[str] | None = None, max_len: int = MAX_STR) -> None:
        self.choices = None if choices is None else tuple(choices)
        self.max_len = max_len

    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not str or len(data) > self.max_len:
            raise Invalid(f"must be a string of at most {self.max_len} characters")
        if self.choices is not None and data not in self.choices:
            raise Invalid(f"must be one of {', '.join(self.choices)}")
        return data

    def schema(self) -> dict[str, Any]:
        if self.choices is not None:
            return {"enum": list(self.choices)}
        return {"type": "string", "maxLength": self.max_len}

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        if (
            type(data) is list
            and _STR.issuperset(map(type, data))
            and (not data or max(map(len, data)) <= self.max_len)
            and (self.choices is None or set(self.choices).issuperset(data))
        ):
            return data
        return super().decode_list(data, into)  # names the first that is not


class Bool(Kind):
    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not bool:
            raise Invalid("must be true or false")
        return data

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        if type(data) is list and _BOOL.issuperset(map(type, data)):
            return data
        return super().decode_list(data, into)


class Bytes(Kind):
    """Bytes: as a string when they are UTF-8 text (bodies, served JSON), so a person can read
    them, else as `{"base64": ...}`."""

    def encode(self, value: Any, out: Writer) -> Any:
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is str and len(data) <= MAX_STR:
            return data.encode("utf-8", "surrogatepass")
        if type(data) is dict and len(data) == 1 and type(data.get("base64")) is str:
            try:
                return base64.b64decode(data["base64"], validate=True)
            except (binascii.Error, ValueError):
                pass
        raise Invalid('must be a string, or {"base64": ...}')

    def schema(self) -> dict[str, Any]:
        return {
            "oneOf": [
                {"type": "string"},
                {
                    "type": "object",
                    "properties": {"base64": {"type": "string"}},
                    "required": ["base64"],
                    "additionalProperties": False,
                },
            ]
        }


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
        encode = self.item.encode
        return [encode(item, out) for item in items]

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
        encode = self.value.encode
        if self.pairs:
            key = self.key.encode
            return [[key(k, out), encode(v, out)] for k, v in value.items()]
        return {k: encode(v, out) for k, v in value.items()}

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


class Json(Kind):
    """Free-form JSON (metadata, a scenario's body), nested at most `MAX_DEPTH` deep."""

    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        _check_depth(data, 0)
        return data

    def schema(self) -> dict[str, Any]:
        return {}

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        if type(data) is list and _SCALARS.issuperset(map(type, data)):
            return data
        return super().decode_list(data, into)


def column_at(data: dict[str, Any], name: str, kind: Kind, into: Reader) -> list[Any]:
    """The column `name` of `data`, read by `kind`; its name added to the place of an error."""
    try:
        return kind.decode_column(data[name], into)
    except Invalid as error:
        error.path.append(name)
        raise


def _check_depth(data: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise Invalid(f"is nested more than {MAX_DEPTH} deep")
    if type(data) is dict:
        for value in data.values():
            _check_depth(value, depth + 1)
    elif type(data) is list:
        for value in data:
            _check_depth(value, depth + 1)
    elif type(data) is float and not math.isfinite(data):
        raise Invalid("holds a number that is not finite")


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
