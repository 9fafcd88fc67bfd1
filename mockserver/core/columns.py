"""Records and columns as data: a dataclass written as the JSON object of its fields, many of
them as one list per field, which reads fast; a column of a few values repeated, as the values
and their codes; whole numbers by the million, as packed bytes.

A list of 100,000 documents as 100,000 JSON objects costs a dict per document to parse and a
check per field per document to read. Written a column per field, each column is checked
whole by its kind (`core.kinds`: a few passes the interpreter runs in C), and the objects are
made by one `map` of the class over the columns: their own constructor, called with checked
values; nothing in the file names a class.
"""

from __future__ import annotations

import binascii
import dataclasses
import sys
from array import array
from operator import attrgetter
from typing import Any

from mockserver.core.containers import Obj
from mockserver.core.kinds import Invalid, Kind, Reader, Writer, column_at


class Record(Obj):
    """A dataclass as the JSON object of exactly `fields`: the arguments of its constructor,
    in their order. Its columns (`encode_column`) are an object of one column per field."""

    def __init__(self, cls: type, fields: dict[str, Kind]) -> None:
        super().__init__(fields, cls.__name__)
        self.cls = cls
        taken = [field.name for field in dataclasses.fields(cls) if field.init]
        assert list(fields) == taken, f"{cls.__name__} takes {taken}"

    def encode(self, value: Any, out: Writer) -> Any:
        return {name: kind.encode(getattr(value, name), out) for name, kind in self.fields.items()}

    def decode(self, data: Any, into: Reader) -> Any:
        return self.cls(**super().decode(data, into))

    def encode_column(self, values: list[Any], out: Writer) -> Any:
        return {
            name: kind.encode_column(list(map(attrgetter(name), values)), out)
            for name, kind in self.fields.items()
        }

    def decode_column(self, data: Any, into: Reader) -> list[Any]:
        if type(data) is not dict or data.keys() != self.fields.keys():
            raise Invalid(f"must be an object of the columns {', '.join(self.fields)}")
        columns = [column_at(data, name, kind, into) for name, kind in self.fields.items()]
        if len({len(column) for column in columns}) > 1:
            raise Invalid("has columns of different lengths")
        return list(map(self.cls, *columns))


class Columns(Kind):
    """A list of `record`s, written a column per field."""

    def __init__(self, record: Record) -> None:
        self.record = record

    def encode(self, value: Any, out: Writer) -> Any:
        return self.record.encode_column(list(value), out)

    def decode(self, data: Any, into: Reader) -> Any:
        return self.record.decode_column(data, into)

    def schema(self) -> dict[str, Any]:
        columns = {name: {"type": ["array", "object"]} for name in self.record.fields}
        return {"type": "object", "properties": columns, "required": list(columns)}


class Packed(Kind):
    """An `array.array` of whole numbers of `typecode`, written as the base64 of its bytes,
    little-endian: a million numbers are read in a few calls, with no object made for each.
    A reader accepts none greater than `hi` (None: any the type holds)."""

    def __init__(self, typecode: str, hi: int | None = None) -> None:
        self.typecode, self.hi = typecode, hi

    def encode(self, value: Any, out: Writer) -> Any:
        numbers = array(self.typecode, value)
        if sys.byteorder == "big":
            numbers.byteswap()
        return binascii.b2a_base64(numbers.tobytes(), newline=False).decode("ascii")

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not str:
            raise Invalid("must be a base64 string")
        try:
            raw = binascii.a2b_base64(data, strict_mode=True)
        except (binascii.Error, ValueError):
            raise Invalid("must be a base64 string") from None
        numbers = array(self.typecode)
        if len(raw) % numbers.itemsize:
            raise Invalid(f"must be whole numbers of {numbers.itemsize} bytes")
        numbers.frombytes(raw)
        if sys.byteorder == "big":
            numbers.byteswap()
        if self.hi is not None and numbers and max(numbers) > self.hi:
            raise Invalid(f"must hold no number greater than {self.hi}")
        return numbers

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "contentEncoding": "base64"}


def _width(count: int) -> str:
    """The array type of the codes of `count` distinct values: as few bytes as hold them."""
    return "B" if count <= 1 << 8 else "H" if count <= 1 << 16 else "I"


class Shared(Kind):
    """`kind`, of which a column holds a few values many times (regions, addresses): written
    as the distinct values and a code for each (`Packed`), read as one object per distinct
    value. Values are told apart by the repr of their JSON form; `kind`'s own column must be
    a list."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def encode(self, value: Any, out: Writer) -> Any:
        return self.kind.encode(value, out)

    def decode(self, data: Any, into: Reader) -> Any:
        return self.kind.decode(data, into)

    def decode_list(self, data: Any, into: Reader) -> list[Any]:
        return self.kind.decode_list(data, into)

    def schema(self) -> dict[str, Any]:
        return self.kind.schema()

    def encode_column(self, values: list[Any], out: Writer) -> Any:
        encoded = self.kind.encode_column(values, out)
        assert type(encoded) is list, "a kind whose column is packed cannot be shared"
        codes: dict[str, int] = {}
        distinct: list[Any] = []
        column: list[int] = []
        for value in encoded:
            code = codes.setdefault(repr(value), len(codes))
            if code == len(distinct):
                distinct.append(value)
            column.append(code)
        return {"values": distinct, "codes": Packed(_width(len(distinct))).encode(column, out)}

    def decode_column(self, data: Any, into: Reader) -> list[Any]:
        if type(data) is not dict or data.keys() != {"values", "codes"}:
            raise Invalid("must be an object of values and codes")
        # Strings interned: equal ones in other columns are one object too, as a seed's
        # builder makes them.
        values = [
            sys.intern(value) if type(value) is str else value
            for value in column_at(data, "values", self.kind, into)
        ]
        try:
            codes = Packed(_width(len(values))).decode(data["codes"], into)
            return list(map(values.__getitem__, codes))
        except Invalid as error:
            error.path.append("codes")
            raise
        except IndexError:  # the check of each code, made as it is looked up
            raise Invalid(f"'codes' must each name one of its {len(values)} values") from None
