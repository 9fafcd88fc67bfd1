"""Giving freed memory back to the system after a big build, where the C library allows it;
and pausing the cyclic collector while a big build makes objects.

Building a large seed's audit history makes and frees gigabytes of scratch objects. Python
returns its own small-object arenas once they are empty, but memory freed to glibc's malloc
(every object of more than 512 bytes, the parsed data's big strings and lists) stays with the
process while anything still lives above it in the heap. `malloc_trim(0)` hands the free
pages back wherever they are in the heap. It costs a walk of the heap, so it runs after
builds, not on requests.
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    import ctypes  # here: only a big build trims, and most processes never make one

    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):  # not glibc (musl, macOS): nothing to call
        return None
    return trim


def release_free_memory() -> bool:
    """Return the C heap's free pages to the system; whether this platform could."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a big build, or a file's writing or reading,
    makes objects by the million, none of them in a cycle: they would set off collections of
    a large heap, in vain."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
