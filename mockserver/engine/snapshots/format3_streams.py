"""Format 3 -> 4: an id stream is saved as its generator alone.

Up to format 3 an id stream drew its generator's 32-bit words a block at a time, and saved
the words of the block it had not used yet (`words`, `used`, `bits`) beside a generator
already past them. A stream is now a plain `random.Random`, so the migration sets each saved
generator back by those unused words, and the stream gives the very values it would have.

Setting Mersenne Twister back: within its current round of 624 words, its position goes back;
past the round's start, the round before is worked out from this one (the twist is invertible
but for the low 31 bits of the round's first word, which no later word depends on; when that
word is itself unused, its value comes from the saved word). This is here for the files, not
for speed: without it an old file would resume with other ids than it promised.
"""

from __future__ import annotations

import random
from typing import Any

_N, _M = 624, 397
_UPPER, _LOWER, _MATRIX_A = 0x80000000, 0x7FFFFFFF, 0x9908B0DF
_MAX_WORDS = 1 << 16  # the most unused words format 3 accepted
_OLD_FIELDS = {"stream", "random", "words", "used", "bits"}
_RECORDS_WITH_STREAMS = ("World", "WebhookBook")


def plain_streams(parsed: dict[str, Any]) -> dict[str, Any]:
    """Every id stream of the file rewritten as `{"stream", "random"}`. A stream that is not
    the old shape, or whose unused words do not follow from its generator, is left as it is,
    and reading the state refuses it."""
    _state(parsed.get("state"))
    return parsed


def _state(state: Any) -> None:
    if type(state) is not dict:
        return
    for name in ("account_ids", "request_ids"):
        _convert(state, name)
    oauth = state.get("oauth")
    streams = oauth.get("streams") if type(oauth) is dict else None
    if type(streams) is dict:
        for name in list(streams):
            _convert(streams, name)
    for name, value in state.items():
        if name != "account_sandboxes":  # each its own state, below
            _records(value)
    sandboxes = state.get("account_sandboxes")
    for sandbox in sandboxes if type(sandboxes) is list else []:
        if type(sandbox) is dict:
            _state(sandbox.get("state"))


def _records(value: Any) -> None:
    """The `ids` of the records that hold a stream, wherever they are written in full."""
    if type(value) is dict:
        if value.get("$") in _RECORDS_WITH_STREAMS:
            _convert(value, "ids")
        for item in value.values():
            _records(item)
    elif type(value) is list:
        for item in value:
            _records(item)


def _convert(holder: dict[str, Any], name: str) -> None:
    old = holder.get(name)
    if type(old) is not dict or old.keys() != _OLD_FIELDS:
        return
    generator, count, used, bits = old["random"], old["words"], old["used"], old["bits"]
    if generator is None:
        if count == 0:
            holder[name] = {"stream": old["stream"], "random": None}
        return
    if not (
        type(count) is int
        and type(used) is int
        and 0 <= used <= count <= _MAX_WORDS
        and type(bits) is str
        and len(bits) <= 8 * count + 1
        and type(generator) is dict
        and _is_state(generator.get("words"))
    ):
        return
    try:
        value = int(bits, 16)
    except ValueError:
        return
    unused = [(value >> (32 * i)) & 0xFFFFFFFF for i in range(used, count)]
    words = _rewound(generator["words"], unused)
    if words is not None:
        holder[name] = {"stream": old["stream"], "random": {**generator, "words": words}}


def _is_state(words: Any) -> bool:
    return (
        type(words) is list
        and len(words) == _N + 1
        and all(type(w) is int and 0 <= w < 2**32 for w in words)
        and 0 < words[-1] <= _N
    )


def _rewound(words: list[int], unused: list[int]) -> list[int] | None:
    """The generator state (624 words and position) that gives `unused` and then is at
    `words`; None if `unused` are not the words that led there."""
    state, position = list(words[:_N]), words[_N]
    back = len(unused)
    while back > position:
        state[0] = _untempered(unused[back - position])  # the one word `_untwisted` needs
        back -= position
        state, position = _untwisted(state), _N
    position -= back
    if position == 0 and unused:
        state[0] = _untempered(unused[0])
    generator = random.Random()
    generator.setstate((3, (*state, position), None))
    given = [generator.getrandbits(32) for _ in unused]
    if given != unused or list(generator.getstate()[1]) != words:
        return None
    return [*state, position]


def _untwisted(new: list[int]) -> list[int]:
    """The round of 624 words before `new` (the low 31 bits of its first word as 0)."""
    old = [0] * _N
    # new[k] = new-or-old[k + M] ^ f(upper of old[k], lower of old[k + 1]): from the last
    # word down, every term but the `f` is known, and `f` gives back its two halves.
    for k in range(_N - 1, -1, -1):
        other = new[k - (_N - _M)] if k >= _N - _M else old[k + _M]
        t = new[k] ^ other
        y = ((t ^ _MATRIX_A) << 1) | 1 if t & _UPPER else t << 1
        old[k] = (old[k] & _LOWER) | (y & _UPPER)
        if k + 1 < _N:
            old[k + 1] = (old[k + 1] & _UPPER) | (y & _LOWER)
    return old


def _untempered(y: int) -> int:
    """The state word that `random.Random` shows as the word `y` (its tempering undone)."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    x = y
    for _ in range(4):
        x = y ^ ((x << 7) & 0x9D2C5680)
    y = x & 0xFFFFFFFF
    x = y
    for _ in range(2):
        x = y ^ (x >> 11)
    return x
