"""YAML reading shared by the seed and scenario loaders: strict loading and line lookup.

Both loaders validate plain values (dicts, lists, scalars) and only on a problem need the line
of the offending node. `line_of` composes the text into YAML nodes and walks a path of keys and
list indices to the node's start mark. `StrictLoader` is PyYAML's safe loader with duplicate
keys rejected (PyYAML would silently keep the last one), aliases refused, and impossible dates
reported with a line. `yaml_error` turns any PyYAML error into the caller's `LoadError` at the
right line.

Aliases are refused because what they build is unbounded by the file's size: nine levels of
nine aliases of the level before are a few hundred bytes whose value, written out (a scenario's
response body, a seed document's metadata), is 9**9 strings. Files are short enough to write
a value out twice, and seeds the mock writes itself never use them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import yaml
from yaml.constructor import ConstructorError
from yaml.error import Mark
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from mockserver.core.errors import LoadError

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # PyYAML built without libyaml: same results, slower
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

PathT = tuple[str | int, ...]
# Finds the index-th item of a sequence node: a node, a 0-based line, or None if absent.
ItemLookup = Callable[[SequenceNode, int], Node | int | None]

_MERGE_TAG = "tag:yaml.org,2002:merge"


class StrictLoader(_BaseLoader):
    """Safe loading that rejects duplicate keys, which PyYAML would silently overwrite, and
    aliases, whose value can be far larger than the file."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.text = stream  # to find the first alias if there is one

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        """The value of `node`, built once: the composer gives an alias the node of its
        anchor, so a node met again is an alias (a merge key's `*name` included)."""
        if node in self.constructed_objects or node in self.recursive_objects:
            alias = first_alias(self.text)  # only an alias shares a node: it is there
            name = alias.anchor if alias else ""
            # libyaml's marks are typed apart from PyYAML's but have the same fields
            mark = cast(Mark, alias.start_mark) if alias else node.start_mark
            problem = f"YAML aliases are not allowed (found '*{name}'): write the value out in full"
            raise ConstructorError(None, None, problem, mark)
        return super().construct_object(node, deep)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        pairs = list(node.value)  # flatten_mapping (merge keys) edits node.value in place
        mapping = super().construct_mapping(node, deep)
        if len(mapping) != len(pairs):  # duplicates, or a `<<` merge: check own keys only
            seen: set[Any] = set()
            for key_node, _ in pairs:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.constructed_objects[key_node]  # built just now, by super()
                if key in seen:
                    raise ConstructorError(
                        None, None, f"duplicate key '{key}'", key_node.start_mark
                    )
                seen.add(key)
        return mapping

    def construct_yaml_timestamp(self, node: ScalarNode) -> Any:
        """A timestamp YAML recognises but datetime rejects (2025-02-30) is an error with a line."""
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:
            problem = f"invalid timestamp '{node.value}': {exc}"
            raise ConstructorError(None, None, problem, node.start_mark) from None


StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", StrictLoader.construct_yaml_timestamp)


def first_alias(text: str) -> yaml.AliasEvent | None:
    """The first alias in `text` (its `anchor` is the name), or None if it has none."""
    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, yaml.AliasEvent):
            return event
    return None


def yaml_load(text: str, loader_class: type[StrictLoader] = StrictLoader) -> Any:
    """The plain value of one YAML document."""
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def plain_item(node: SequenceNode, index: int) -> Node | int | None:
    return node.value[index] if 0 <= index < len(node.value) else None


def line_of(text: str, path: PathT, item: ItemLookup = plain_item) -> int:
    """1-based line of the node at `path` in `text`, or of its nearest ancestor that exists.
    A mapping key's line is where the key is written, so `a.b` points at `b:`."""
    node = yaml.compose(text, Loader=StrictLoader)
    line = 0 if node is None else node.start_mark.line
    for part in path:
        if isinstance(node, MappingNode) and isinstance(part, str):
            pair = next((p for p in node.value if key_text(p[0]) == part), None)
            if pair is None:
                break
            line, node = pair[0].start_mark.line, pair[1]
        elif isinstance(node, SequenceNode) and isinstance(part, int):
            found = item(node, part)
            if isinstance(found, int):  # the caller knows the line but has no node
                return found + 1
            if found is None:
                break
            line, node = found.start_mark.line, found
        else:
            break
    return int(line) + 1


def key_text(node: Node) -> str | None:
    return node.value if isinstance(node, ScalarNode) else None


def yaml_error(
    exc: yaml.YAMLError, text: str, source: str, error: type[LoadError] = LoadError
) -> LoadError:
    """A YAML syntax (or duplicate key) error as `error` at the line of its mark."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = exc.problem or "syntax error"
        if isinstance(exc, ConstructorError):
            return error(source, line, problem)
        context = f"{exc.context}, " if exc.context else ""
        return error(source, line, f"invalid YAML: {context}{problem}")
    position = getattr(exc, "position", None)
    line = text.count("\n", 0, position) + 1 if isinstance(position, int) else 1
    character, reason = getattr(exc, "character", None), getattr(exc, "reason", exc)
    if isinstance(character, int):
        reason = f"unacceptable character #x{character:04x}: {reason}"
    return error(source, line, f"invalid YAML: {reason}")
