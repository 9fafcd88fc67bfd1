"""Reading a downloaded snapshot file in tests that edit it."""

from __future__ import annotations

from typing import Any


def first_record(data: Any, tag: str) -> dict[str, Any]:
    """The first record of `tag` in the file, breadth first."""
    queue = [data]
    while queue:
        item = queue.pop(0)
        if isinstance(item, dict):
            if item.get("$") == tag:
                return item
            queue.extend(item.values())
        elif isinstance(item, list):
            queue.extend(item)
    raise LookupError(tag)
