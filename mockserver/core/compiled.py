"""Whether this process runs the request path compiled by mypyc or as Python.

A platform wheel built with the mypyc build hook (docs/development/compiled-build.md) holds
the request path's modules as extension modules beside their sources; a source or editable
install holds the sources alone. Python loads an extension module before a source of the same
name, so where a module came from says which of the two runs. The hook compiles the request
path as one unit (pyproject.toml lists its modules), so one of them tells for all:
`mockserver.core.clock`, which imports nothing but the standard library.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from types import ModuleType


def loaded_compiled(module: ModuleType) -> bool:
    """Whether `module` was loaded from an extension module rather than from Python source."""
    return (getattr(module, "__file__", None) or "").endswith(tuple(EXTENSION_SUFFIXES))


def request_path_compiled() -> bool:
    """Whether the request path runs compiled in this process (imports the clock module, which
    every app imports anyway)."""
    from mockserver.core import clock

    return loaded_compiled(clock)
