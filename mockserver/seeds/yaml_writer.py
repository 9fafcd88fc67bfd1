"""A small YAML writer for seeds: generated ones and exported sandboxes.

Structure is written in block style and each record of scalars as one line of JSON, which is
valid YAML flow syntax and which `mockserver.seeds.parser` reads through its fast JSON path, so
a large generated seed loads far faster than PyYAML alone would read it.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

Record = dict[str, Any]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_YAML11_WORDS = frozenset("y n yes no on off true false null".split())  # bool/null in YAML 1.1
# Lists whose records are written one JSON line each even though they nest (workflow steps):
# there are as many workflows as documents, so they must take the loader's fast path too.
_JSON_LINE_LISTS = frozenset({"workflows"})
_ENCODER = json.JSONEncoder(ensure_ascii=False)  # what json.dumps builds on every call
# Characters json.dumps leaves raw but a YAML reader rejects or reads as line breaks.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


class Style(NamedTuple):
    """How the lists named in each set are written, whatever their records hold."""

    json_lines: frozenset[str] = _JSON_LINE_LISTS  # one line of JSON per record
    blocks: frozenset[str] = frozenset()  # a block mapping per record, even a flat one


PLAIN = Style()


def emit(document: Record, style: Style = PLAIN) -> str:
    """Block style for the structure; each record of scalars as one line of JSON, which is
    valid YAML flow syntax and which `mockserver.seeds.loader` reads with its fast JSON path
    (`style` says otherwise for some lists)."""
    lines: list[str] = []
    _emit_mapping(document, 0, lines, style)
    return "\n".join(lines) + "\n"


def _emit_mapping(mapping: Record, indent: int, lines: list[str], style: Style) -> None:
    pad = " " * indent
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{_key_text(key)}:")
            _emit_mapping(value, indent + 2, lines, style)
        elif isinstance(value, list) and value and not _is_flat(value):
            lines.append(f"{pad}{_key_text(key)}:")
            for item in value:
                if key in style.json_lines:
                    lines.append(f"{pad}  - {_json(item)}")
                else:
                    _emit_item(item, indent + 2, lines, style, block=key in style.blocks)
        else:
            lines.append(f"{pad}{_key_text(key)}: {_json(value)}")


def _emit_item(item: object, indent: int, lines: list[str], style: Style, *, block: bool) -> None:
    if isinstance(item, dict) and item and (block or not all(_is_flat(v) for v in item.values())):
        start = len(lines)
        _emit_mapping(item, indent + 2, lines, style)
        lines[start] = " " * indent + "- " + lines[start][indent + 2 :]
    else:
        lines.append(f"{' ' * indent}- {_json(item)}")


def _is_flat(value: object) -> bool:
    """A scalar, or a list or mapping of scalars: fits on one flow-style line."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return not any(isinstance(v, dict | list) for v in value)
    return True


def _key_text(key: str) -> str:
    if _PLAIN_KEY.match(key) and key.lower() not in _YAML11_WORDS:
        return key
    return _json(key)


def _json(value: object) -> str:
    """JSON text, valid as a YAML flow node once a few raw characters are escaped."""
    text = _ENCODER.encode(value)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
