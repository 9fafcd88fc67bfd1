"""Freed C-heap memory goes back to the system after a big build (`mockserver.core.memory`)."""

from __future__ import annotations

import os
import sys

import pytest

from mockserver.core import memory


def _resident_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and glibc's heap")
def test_free_memory_under_a_survivor_is_handed_back() -> None:
    if not memory.release_free_memory():
        pytest.skip("not glibc: malloc_trim is not there")
    # 10 KiB objects come from malloc's heap (not mmap); one allocated after them stays, so
    # plain frees cannot shrink the heap past it.
    scratch = [os.urandom(16) * 640 for _ in range(20_000)]  # about 200 MiB
    survivor = os.urandom(16) * 640
    before = _resident_mib()
    del scratch
    freed = _resident_mib()
    assert memory.release_free_memory()
    after = _resident_mib()
    assert survivor
    assert before - freed < 50  # freed to malloc, still resident
    assert freed - after > 150  # handed back
