"""Seed YAML text -> plain objects, and the line of any path in it.

Parsing is built for big seeds. PyYAML makes a Python event, node and value for every scalar,
even with libyaml, which is far too slow for a seed of many documents. So a block-sequence item
written on one line as a JSON object (`  - {"id": "doc_1", ...}`, what `seedgen` emits, and valid
YAML flow syntax) is parsed with `json` instead, one call per run of such lines. The YAML parser
then reads a small skeleton in which each run is a one-line `!mockserver/json-run N` placeholder
(padded with blank lines, so line numbers do not move). The shortcut is taken only where it gives
exactly what YAML gives: no floats or NaN (their YAML 1.1 readings differ from JSON's), no
duplicate keys, no characters YAML reads differently (tabs, NEL/LS/PS, non-printables, escaped
surrogates), no over-long keys; and if any placeholder is not read back as a list item (say,
the lines sat inside a block scalar) the whole text is parsed by YAML alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import orjson
import yaml
from yaml.nodes import Node, ScalarNode, SequenceNode

from mockserver.core.errors import SeedError
from mockserver.seeds.validation import PathT
from mockserver.seeds.yaml_lines import StrictLoader, line_of, yaml_error, yaml_load

_RUN_TAG = "!mockserver/json-run"
_JSON_ITEM = re.compile(r"( *)- +(\{.*\}) *")
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # JSON joins escaped pairs, YAML does not
# A quoted key this long is past YAML's 1024-character limit on implicit keys.
_LONG_KEY = re.compile(r'"(?:[^"\\]|\\.){900,}" *:')
_SPACED_KEY = re.compile(r'" +:')


def parse_yaml(text: str) -> Any:
    """The plain value of YAML `text`, as SafeLoader builds it but with duplicate keys
    rejected; SeedError if it is not YAML. Exposed for tests of the JSON shortcut."""
    return parse(text, "<text>").value


class Parsed:
    """A parsed text, plus what is needed to find the line of a path in it later."""

    def __init__(self, value: Any, yaml_text: str, run_sizes: list[int]) -> None:
        self.value = value
        self.yaml_text = yaml_text  # the text YAML read: the skeleton, or the whole text
        self.run_sizes = run_sizes

    def line_of(self, path: PathT) -> int:
        """1-based line of the node at `path`, or of its nearest ancestor that exists."""
        return line_of(self.yaml_text, path, self._item)

    def _item(self, node: SequenceNode, index: int) -> Node | int | None:
        """The index-th item of a sequence whose runs stand for run_sizes[N] items each."""
        item: Node
        for item in node.value:
            size = 1
            if item.tag == _RUN_TAG and isinstance(item, ScalarNode):
                size = self.run_sizes[int(item.value)]
                if index < size:
                    return int(item.start_mark.line) + index
            elif index == 0:
                return item
            index -= size
        return None


class _Loader(StrictLoader):
    """The strict loader; a class of its own so the skeleton loader's tag stays private."""


class _Run:
    """What a `!mockserver/json-run N` placeholder constructs: run N, to be spliced in."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _SkeletonLoader(_Loader):
    runs_seen: list[int]


def _construct_run(loader: _SkeletonLoader, node: ScalarNode) -> _Run:
    run = _Run(int(loader.construct_scalar(node)))
    loader.runs_seen.append(run.index)
    return run


_SkeletonLoader.add_constructor(_RUN_TAG, _construct_run)


class _NotJson(Exception):
    """A line that looked like a JSON item but must be left to YAML."""


def parse(text: str, source: str) -> Parsed:
    """YAML text -> plain value, with JSON-lines runs parsed by json (see module docstring)."""
    if _RUN_TAG not in text:  # a file using our private tag is read by YAML alone
        skeleton, runs = _split_json_runs(text)
        if runs:
            parsed = _load_skeleton(skeleton, runs)
            if parsed is not None:
                return parsed
    try:
        return Parsed(yaml_load(text, _Loader), text, [])
    except yaml.YAMLError as exc:
        raise yaml_error(exc, text, source, SeedError) from None


def _load_skeleton(skeleton: str, runs: list[list[Any]]) -> Parsed | None:
    """The value with runs spliced in, or None if YAML did not read every run as list items."""
    try:
        loader = _SkeletonLoader(skeleton)
        loader.runs_seen = []
        try:
            value = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError:
        return None  # report errors from the original text, with its own line and message
    if sorted(loader.runs_seen) != list(range(len(runs))):
        return None
    if not _splice(value, runs, set()):
        return None
    return Parsed(value, skeleton, [len(run) for run in runs])


def _splice(value: Any, runs: list[list[Any]], seen: set[int]) -> bool:
    """Replace each _Run in the lists of `value` by its items; False if one sits elsewhere."""
    if id(value) in seen:  # anchors and aliases share objects; recursive ones loop
        return True
    seen.add(id(value))
    if isinstance(value, dict):
        return all(
            type(v) is not _Run and type(k) is not _Run and _splice(v, runs, seen)
            for k, v in value.items()
        )
    if isinstance(value, list) and any(type(item) is _Run for item in value):
        spliced: list[Any] = []
        for item in value:
            if type(item) is _Run:
                spliced.extend(runs[item.index])
            elif _splice(item, runs, seen):
                spliced.append(item)
            else:
                return False
        value[:] = spliced
        return True
    if isinstance(value, list):
        return all(_splice(item, runs, seen) for item in value)
    return True


def _split_json_runs(text: str) -> tuple[str, list[list[Any]]]:
    """The skeleton text and the parsed items of each run of JSON-object list items."""
    lines = text.split("\n")
    runs: list[list[Any]] = []
    run: list[Any] = []
    run_indent = ""
    for index, line in enumerate(lines):
        item = _json_item(line)
        if run and (item is None or item[0] != run_indent):
            _close_run(lines, index, run_indent, run, runs)
            run = []
        if item is not None:
            run_indent = item[0]
            run.append(item[1])
    if run:
        _close_run(lines, len(lines), run_indent, run, runs)
    return "\n".join(lines), runs


def _close_run(
    lines: list[str], end: int, indent: str, run: list[Any], runs: list[list[Any]]
) -> None:
    """Replace the run of lines ending before `end` by placeholder N and blank lines."""
    first = end - len(run)
    crlf = "\r" if lines[first].endswith("\r") else ""
    lines[first] = f"{indent}- {_RUN_TAG} {len(runs)}{crlf}"
    for blank in range(first + 1, end):
        lines[blank] = crlf
    runs.append(run)


def _json_item(line: str) -> tuple[str, Any] | None:
    """(indent, value) if `line` is a list item whose object YAML and JSON read alike."""
    if "- {" not in line:
        return None
    line = line.removesuffix("\r")
    match = _JSON_ITEM.fullmatch(line)
    # isprintable() is false for every character YAML reads unlike JSON (and a few more).
    if match is None or not line.isprintable() or ("\\u" in line and _SURROGATE.search(line)):
        return None
    if len(line) > 900 and _LONG_KEY.search(line):
        return None
    obj = match[2]
    value = _fast_object(obj)
    if value is not None:
        return match[1], value
    try:
        value, end = _DECODER.raw_decode(obj)
    except (ValueError, _NotJson):
        return None
    return (match[1], value) if end == len(obj) else None


def _fast_object(obj: str) -> dict[str, Any] | None:
    """`obj` decoded by orjson when that gives what the exact decoder below gives, else None.

    orjson keeps the last of duplicate keys and reads big ints as floats, so the value must
    have no float and no dropped key. Every key written is a `"`, spaces and a `:` (spaced
    ones go to the exact path), so the count of `":` bounds the keys written, which bound the
    keys kept: when it equals the keys the value has, there was no duplicate.
    """
    if '" ' in obj and _SPACED_KEY.search(obj):
        return None
    try:
        value: dict[str, Any] = orjson.loads(obj)  # `obj` is `{...}`: a dict if it parses
    except orjson.JSONDecodeError:
        return None  # the exact path decides (NaN, lone surrogates, trailing text, ...)
    try:
        keys = _keys_if_no_float(value)
    except RecursionError:
        return None  # nested deeper than Python recurses: as deep as json goes, no further
    return value if keys == obj.count('":') else None


def _keys_if_no_float(value: dict[str, Any] | list[Any]) -> int:
    """How many keys the mappings in `value` hold, or -1 if it holds a float."""
    keys = 0
    children: Iterable[Any] = value
    if type(value) is dict:
        keys = len(value)
        children = value.values()
    for item in children:
        kind = type(item)
        if kind is float:
            return -1
        if kind is dict or kind is list:
            nested = _keys_if_no_float(item)
            if nested < 0:
                return -1
            keys += nested
    return keys


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise _NotJson  # let YAML report the duplicate with its line
    return mapping


def _not_json(_text: str) -> Any:
    raise _NotJson


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_pairs, parse_float=_not_json, parse_constant=_not_json
)
