"""What parsing a JSON text will cost in memory, estimated from the text before it is parsed.

A JSON file's size does not bound what parsing it builds: `[{},{},...]` is 3 bytes a dict of
72, so 64 MiB of it (64 KiB gzipped) would take gigabytes. `estimate` charges each value what
CPython's objects for it take at most (a dict, a list, a string, an element of a container, a
dict's key) plus the text of the strings, so a file can be refused before `orjson.loads`
builds anything. It reads the text in windows with `bytes` methods only, so it costs a little
more than one window of memory and never holds the interpreter long at a time.

The charges are upper bounds measured on 64-bit CPython for the shapes that cost most per
byte; a string holding a 4-byte UTF-8 character may be stored 4 bytes a character, so such a
window's string text is charged 4 times.
"""

from __future__ import annotations

import re

_WINDOW = 1 << 20
_DICT = 104  # an empty dict and its first entry
_LIST = 64
_ELEMENT = 40  # a `,`: an element's slot in its container and a number's object
_KEY = 32  # a `:`: the slot of a key and its value in a dict
_STRING = 56  # a string's object, without its text
_FOUR_BYTE_CHARACTER = re.compile(rb"[\xf0-\xf4]")
_BACKSLASH = 0x5C


def estimate(data: bytes) -> int:
    """An upper estimate of the bytes of the objects `orjson.loads(data)` builds."""
    cost = 0
    in_string = False
    start = 0
    while start < len(data):
        end = min(start + _WINDOW, len(data))
        while end < len(data) and data[end - 1] == _BACKSLASH:  # no escape cut in two
            end += 1
        window = data[start:end]
        # Without its escaped backslashes and quotes, every `"` of the text starts or ends a
        # string: the pieces between them are alternately outside and inside strings.
        pieces = window.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
        outside = b"".join(pieces[1::2] if in_string else pieces[::2])
        quotes = len(pieces) - 1
        text = len(window) - len(outside) - quotes
        if _FOUR_BYTE_CHARACTER.search(window):
            text *= 4
        cost += (
            _DICT * outside.count(b"{")
            + _LIST * outside.count(b"[")
            + _ELEMENT * outside.count(b",")
            + _KEY * outside.count(b":")
            + _STRING * ((quotes + (not in_string)) // 2)
            + text
        )
        in_string = in_string != (quotes % 2 == 1)
        start = end
    return cost
