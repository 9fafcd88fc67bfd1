"""How a record of a snapshot file is declared (`Spec`, `record`), and the kinds of value
every record shares (times, counts, id streams).

The records declared (`resources`, `worlds`, `timers`, `traffic`) are the allow-list: a record
is read from fields checked by their kinds and built by calling its own class with them (or,
for the few classes whose state is not their constructor's arguments, by a documented
`restored` path of that class); no other class can be named by a file. `Spec` checks at import
that a dataclass's fields are exactly the ones listed (less its caches), so a model that gains
a field cannot silently drop out of snapshots.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable
from typing import Any

from mockserver.core.clock import FIRST_SECOND, LAST_SECOND
from mockserver.core.containers import Later, ListOf, Opt
from mockserver.core.ids import IdFactory
from mockserver.core.kinds import Int, Invalid, Kind, Num, Reader, Str, Writer
from mockserver.domain.models import (
    ENVIRONMENTS,
    REGIONS,
)
from mockserver.engine.snapshots.kinds import SPECS

Make = Callable[[Reader, dict[str, Any]], Any]
Get = Callable[[Any], dict[str, Any]]

# A time is within the years 1 to 9999 (Unix seconds), the range a timestamp can show, so
# whatever the restored sandbox does with it (shows it, moves the clock to it) works. A due time
# (a timer's, an expiry) may lie past that, since it is only compared with the clock: it is a
# time plus a duration, and a duration is at most 2**53 seconds, as in a seed.


class _Time(Int):
    """Whole Unix seconds within the years 1 to 9999."""

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not int or not FIRST_SECOND <= data <= LAST_SECOND:
            raise Invalid(_NOT_A_TIME)
        return data


class _Moment(Num):
    """Unix seconds with a fraction, within the years 1 to 9999."""

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) not in (int, float) or not FIRST_SECOND <= data <= LAST_SECOND:
            raise Invalid(_NOT_A_TIME)
        return data


_NOT_A_TIME = (
    f"must be a time from 0001-01-01 to 9999-12-31 (Unix seconds {FIRST_SECOND} to {LAST_SECOND})"
)
TIME = _Time(FIRST_SECOND, LAST_SECOND)  # whole seconds
MOMENT = _Moment(FIRST_SECOND, LAST_SECOND)  # with a fraction: the clock, a journal entry's
DURATION = Int(0, 2**53)  # whole seconds added to a time
SECONDS = Num(0, 2**53)  # a duration with a fraction
DUE = Num(FIRST_SECOND, 2**54)  # a time something falls due: a time plus a duration
DUE_SECOND = Int(FIRST_SECOND, 2**54)  # the same, in whole seconds (an expiry)
PERIOD_BOUND = Int(FIRST_SECOND, LAST_SECOND + 1)  # a day's first second (export periods)
COUNT = Int()
TEXT = Str()
REGION = Str(REGIONS)
ENVIRONMENT = Str(ENVIRONMENTS)
STRINGS = ListOf(TEXT, tuple)
STRING_SET = ListOf(TEXT, frozenset, ordered=True)


class Spec:
    """One record: `fields` (JSON name -> kind) read in order, `make` builds the object from
    them (default: the class called with them), `get` reads them off an object (default:
    attributes of the same names). `later`: fields read once the whole file is (`Later`)."""

    def __init__(
        self,
        cls: type,
        fields: dict[str, Kind],
        *,
        tag: str | None = None,
        shared: bool = False,
        make: Make | None = None,
        get: Get | None = None,
        skip: Iterable[str] = (),
    ) -> None:
        self.cls = cls
        self.tag = tag or cls.__name__
        self.fields = fields
        self.shared = shared
        self._make = make
        self._get = get
        self.later = tuple(name for name, kind in fields.items() if isinstance(kind, Later))
        self._keys = frozenset({"$", *fields, *(("$id",) if shared else ())})
        self._decoders = tuple((name, kind.decode) for name, kind in fields.items())
        if dataclasses.is_dataclass(cls) and make is None:
            names = {f.name for f in dataclasses.fields(cls)} - set(skip)
            assert names == set(fields), f"{cls.__name__}: {sorted(names ^ set(fields))}"

    def write(self, obj: Any, out: Writer) -> dict[str, Any]:
        values = self._get(obj) if self._get is not None else None
        data: dict[str, Any] = {"$": self.tag}
        for name, kind in self.fields.items():
            value = values[name] if values is not None else getattr(obj, name)
            data[name] = kind.encode(value, out)
        return data

    def read(self, data: dict[str, Any], into: Reader) -> Any:
        if data.keys() != self._keys:
            missing = sorted(self._keys - data.keys() - {"$id"})
            if missing:
                raise Invalid(f"lacks the field '{missing[0]}'")
            extra = sorted(data.keys() - self._keys)
            raise Invalid(f"has a field a {self.tag} does not have: '{extra[0]}'")
        values: dict[str, Any] = {}
        name = ""
        try:
            for name, decode in self._decoders:
                values[name] = decode(data[name], into)
        except Invalid as error:
            error.path.append(name)
            raise
        for name in self.later:
            values[name] = None
        made = self._make(into, values) if self._make is not None else self.cls(**values)
        for name in self.later:
            kind = self.fields[name]
            assert isinstance(kind, Later)
            kind.resolve(data[name], into, _setter(made, name), f"({self.tag} {name})")
        return made


def _setter(obj: Any, name: str) -> Callable[[Any], None]:
    def done(value: Any) -> None:
        object.__setattr__(obj, name, value)

    return done


def record(spec: Spec) -> Spec:
    """Add `spec` to the allow-list."""
    assert spec.tag not in SPECS
    SPECS[spec.tag] = spec
    return spec


# -- values that are not records -----------------------------------------------------------


class RandomState(Kind):
    """A `random.Random`'s state: Mersenne Twister's 624 words and position, and the gauss
    carry (none of mockserver's streams draws one)."""

    def encode(self, value: Any, out: Writer) -> Any:
        version, words, gauss = value.getstate()
        return {"version": version, "words": list(words), "gauss": gauss}

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or data.keys() != {"version", "words", "gauss"}:
            raise Invalid("must be an object of version, words and gauss")
        words = data["words"]
        if (
            data["version"] != 3
            or type(words) is not list
            or len(words) != 625
            or any(type(w) is not int or not 0 <= w < 2**32 for w in words)
            or not 0 < words[-1] <= 624
        ):
            raise Invalid("is not the state of a random number generator")
        gauss = Opt(Num()).decode(data["gauss"], into)
        generator = random.Random(0)
        generator.setstate((3, tuple(words), gauss))
        return generator

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "version": {"const": 3},
                "words": {"type": "array", "items": {"type": "integer"}, "minItems": 625},
                "gauss": {"type": ["number", "null"]},
            },
            "required": ["version", "words", "gauss"],
            "additionalProperties": False,
        }


class Stream(Kind):
    """An id stream (`IdFactory`): its name and its generator (null while it has drawn
    nothing: it is then as seeded from its name)."""

    _random = Opt(RandomState())

    def encode(self, value: Any, out: Writer) -> Any:
        name, generator = value.saved()
        return {"stream": name, "random": self._random.encode(generator, out)}

    def decode(self, data: Any, into: Reader) -> Any:
        if type(data) is not dict or data.keys() != {"stream", "random"}:
            raise Invalid("must be an object of stream and random")
        name = TEXT.decode(data["stream"], into)
        return IdFactory.resumed(name, self._random.decode(data["random"], into))

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"stream": {"type": "string"}, "random": self._random.schema()},
            "required": ["stream", "random"],
            "additionalProperties": False,
        }


STREAM = Stream()
