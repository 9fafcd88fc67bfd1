"""The records of a snapshot file: `Rec`, a record of the registry (`records`) known by a tag,
and the registry itself (`SPECS`). Every other kind of value is plain data (`core.kinds`,
`core.containers`). A record's tag is checked against the few tags its place allows.

Shared records (one object in several places: a document in three indexes, a delivery in its
queue and in the journal) are written in full once, with `"$id": n`, and as `{"$ref": n}`
after.
"""

from __future__ import annotations

from typing import Any, Protocol

from mockserver.core.kinds import Invalid, Kind, Reader, Writer


class Spec(Protocol):
    """What the registry's readers need of a record's declaration (`records.Spec` is the one
    there is): its class, its fields, whether it is shared, and how it is written and read."""

    cls: type
    fields: dict[str, Kind]
    shared: bool

    def write(self, obj: Any, out: Writer) -> dict[str, Any]: ...

    def read(self, data: dict[str, Any], into: Reader) -> Any: ...


# The records a file may hold, by tag: filled by `records` (which lists them), read by `Rec`.
SPECS: dict[str, Spec] = {}


class Rec(Kind):
    """A record of the registry, of one of `tags`; shared ones by number after the first."""

    def __init__(self, *tags: str) -> None:
        self.tags = tags
        self._by_class: dict[type, Spec] = {}
        self._by_tag: dict[str, Spec] = {}

    def _specs(self) -> None:
        self._by_tag = {tag: SPECS[tag] for tag in self.tags}
        self._by_class = {spec.cls: spec for spec in self._by_tag.values()}

    def encode(self, value: Any, out: Writer) -> Any:
        if not self._by_class:
            self._specs()
        spec = self._by_class[type(value)]
        if not spec.shared:
            return spec.write(value, out)
        number = out.numbers.get(id(value))
        if number is not None:
            return {"$ref": number}
        number = out.numbers[id(value)] = len(out.numbers)
        return {"$id": number, **spec.write(value, out)}

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict:
            raise Invalid("must be an object")
        if not self._by_tag:
            self._specs()
        tag = data.get("$")
        if tag is None:
            return self._reference(data, into)
        spec = self._by_tag.get(tag) if type(tag) is str else None
        if spec is None:
            raise Invalid(f"must be a {' or '.join(self.tags)} (its '$' field)")
        if not spec.shared:
            if "$id" in data:
                raise Invalid("'$id' is for shared objects, and only they have one")
            return spec.read(data, into)
        number = data.get("$id")
        if type(number) is not int or number in into.objects:
            raise Invalid(f"'$id' {number!r} is not a new number")
        made = spec.read(data, into)
        into.objects[number] = (tag, made)
        return made

    def _reference(self, data: dict[str, Any], into: Reader) -> Any:
        number = data.get("$ref")
        found = into.objects.get(number) if type(number) is int and len(data) == 1 else None
        if found is None:
            raise Invalid(f"refers to an object not written before it ({number!r})")
        if found[0] not in self._by_tag:
            raise Invalid(f"refers to a {found[0]}, not a {' or '.join(self.tags)}")
        return found[1]

    def schema(self) -> dict[str, Any]:
        options = [{"$ref": f"#/$defs/{tag}"} for tag in self.tags]
        options.append({"$ref": "#/$defs/reference"})
        return {"anyOf": options}
