"""The kinds of value a data file holds (a snapshot, a seed cache entry), each with its JSON
form, its check and its schema.

A kind turns a Python value into JSON (`encode`), checks a JSON value from a file and turns it
back (`decode`, raising `Invalid` with what is wrong), and describes itself as JSON Schema
(`schema`). Nothing here looks up a class by a name from the file: the reader says what each
place holds, and objects are built by the code that declares it. The snapshot's records, known
by a tag, are `engine/snapshots/kinds.Rec`.

This module has the base `Kind`, the plain values (numbers, strings, bools, bytes, free-form
JSON) and the errors; `core.containers` has the kinds made of other kinds (optional values,
lists, tuples, mappings, objects, values read last), and `core.columns` records and columns.

A list of many values of one kind (the titles of 100,000 documents) is read whole
(`decode_list`): the plain kinds check it in a few passes the interpreter runs in C (the set of
its types, its least and greatest values) and hand it back unchanged; only a list that fails is
read item by item, to say where. A column (`encode_column`, `decode_column`) is such a list,
but for the kinds that pack theirs (`containers.ListOf`, `columns.Record`).
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
_INT, _STR, _BOOL = frozenset((int,)), frozenset((str,)), frozenset((bool,))
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


class Num(Kind):
    """A finite number from `lo` to `hi` (seconds, perhaps with a fraction), read as written:
    an int or a float."""

    def __init__(self, lo: float = -(2**53), hi: float = 2**53) -> None:
        self.lo, self.hi = lo, hi

    def encode(self, value: Any, out: Writer) -> Any:
        return value

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) not in (int, float) or not self.lo <= data <= self.hi:
            raise Invalid(f"must be a finite number from {self.lo} to {self.hi}")
        return data

    def schema(self) -> dict[str, Any]:
        return {"type": "number", "minimum": self.lo, "maximum": self.hi}


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
