"""The kinds of value a data file holds (a snapshot, a seed cache entry), each with its JSON
form, its check and its schema.

A kind turns a Python value into JSON (`encode`), checks a JSON value from a file and turns it
back (`decode`, raising `Invalid` with what is wrong), and describes itself as JSON Schema
(`schema`). Nothing here looks up a class by a name from the file: the reader says what each
place holds, and objects are built by the code that declares it. The snapshot's records, known
by a tag, are `engine/snapshots/kinds.Rec`.

An object the file may point at before it is complete (a timer inside its own delivery) is read
`Later`, once everything else is.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable, Iterable
from typing import Any

MAX_INT = 2**63 - 1
MAX_STR = 1 << 24  # characters of any one string
MAX_DEPTH = 32  # nesting of free-form JSON (metadata, scenario bodies)


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


class Bool(Kind):
    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not bool:
            raise Invalid("must be true or false")
        return data

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


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
        if type(data) is not list:
            raise Invalid("must be a list")
        decode, made = self.item.decode, []
        for index, item in enumerate(data):
            try:
                made.append(decode(item, into))
            except Invalid as error:
                error.path.append(index)
                raise
        return self.make(made)

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": self.item.schema()}


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


class Json(Kind):
    """Free-form JSON (metadata, a scenario's body), nested at most `MAX_DEPTH` deep."""

    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        _check_depth(data, 0)
        return data

    def schema(self) -> dict[str, Any]:
        return {}


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
