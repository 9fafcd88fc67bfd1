"""An async function of a module that is imported by the function's first call.

A sandbox is built for every pytest session and every `run`, and the inspector's pages are
never opened in most of them: their modules (and Jinja2) cost every build a few milliseconds.
Their route table names them with `imported_on_first_call`.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import Any

AsyncFunction = Callable[[Any], Awaitable[Any]]


def imported_on_first_call(module: str, name: str) -> AsyncFunction:
    """`module.name`, a one-argument async function, imported by the first call."""
    found: list[AsyncFunction] = []

    async def call(argument: Any) -> Any:
        if not found:
            found.append(getattr(importlib.import_module(module), name))
        return await found[0](argument)

    return call
