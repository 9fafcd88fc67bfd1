r"""Workflow step conditions: a tiny expression language over a document, never `eval`.

A step whose condition is false when it becomes current is skipped. Conditions come from API
callers, so the language is parsed by hand into a tree of frozen dataclasses and interpreted:
nothing in it can call Python, and evaluation cannot raise, whatever the document holds.

    expr       := or_expr
    or_expr    := and_expr ("or" and_expr)*
    and_expr   := not_expr ("and" not_expr)*
    not_expr   := "not" not_expr | comparison
    comparison := operand (("==" | "!=" | ">" | ">=" | "<" | "<=" | "in" | "not" "in") operand)?
    operand    := path | literal | list | "(" expr ")"
    path       := IDENT ("." IDENT)*       IDENT = [A-Za-z_][A-Za-z0-9_]*, not a keyword,
                                          no spaces around the dots
    literal    := STRING | NUMBER | "true" | "false" | "null"
    STRING     := '...' or "..." with escapes \" \' \\ \n \t \uXXXX, no raw line breaks
    NUMBER     := "-"? DIGITS ("." DIGITS)?
    list       := "[" (literal ("," literal)*)? "]"

Keywords (case-sensitive): and or not in true false null. Values follow JSON: numbers compare
numerically, booleans equal only booleans, ordering needs two numbers or two strings, and an
ill-typed comparison is simply false (`not in` included), so a condition over a field a
document lacks skips the step instead of failing the workflow.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mockserver.domain.validation import json_type

__all__ = ["MAX_DEPTH", "MAX_LENGTH", "Condition", "ConditionSyntaxError", "parse"]

MAX_LENGTH = 1000
MAX_DEPTH = 32  # parentheses and `not`s open at once; keeps the parser's recursion small

_KEYWORDS = frozenset({"and", "or", "not", "in", "true", "false", "null"})
_CONSTANTS: dict[str, Any] = {"true": True, "false": False, "null": None}
_OPERATORS = ("==", "!=", ">=", "<=", ">", "<")  # two-character ones first
_ORDER = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}
_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "n": "\n", "t": "\t"}
_HINTS = {"=": "; use '=='", "&": "; use 'and'", "|": "; use 'or'", "!": "; use '!=' or 'not'"}
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"  # ASCII only: str.isalpha and str.isdigit accept far more
_PATH = re.compile(rf"{_NAME}(?:\.{_NAME})*")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_NUMBER_RUN = re.compile(r"-?[0-9][A-Za-z0-9_.]*")  # what a reader would take for one number
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_KEYWORD_KEY = re.compile(r"(?:^|\.)(and|or|not|in|true|false|null)(?=\.|$)")


class ConditionSyntaxError(ValueError):
    """A condition that does not parse; `position` is the 0-based character offset."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(frozen=True, slots=True)
class Path:
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Literal:
    value: Any  # None, bool, int, float, str, or a tuple of those for a list


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node


@dataclass(frozen=True, slots=True)
class Logic:
    op: str  # "and" or "or"; a flat tuple, so `a or b or c` is one node and not a deep chain
    operands: tuple[Node, ...]


Node = Path | Literal | Compare | Not | Logic


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # name, keyword, string, number, op, punct, end
    text: str  # as written, for messages
    value: Any
    position: int


def _error(message: str, position: int, hint: str = "") -> ConditionSyntaxError:
    """The usual shape of a message: what went wrong, where, then any advice."""
    return ConditionSyntaxError(f"{message} at position {position}{hint}", position)


def _tokenize(text: str) -> list[_Token]:
    """Split `text` into tokens, ending with an `end` token at len(text)."""
    tokens: list[_Token] = []
    i = 0
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i == len(text):
            tokens.append(_Token("end", "", None, i))
            return tokens
        ch = text[i]
        if ch in "\"'":
            value, end = _read_string(text, i)
            tokens.append(_Token("string", text[i:end], value, i))
        elif run := _NUMBER_RUN.match(text, i):
            raw, end = run.group(), run.end()
            if not _NUMBER.fullmatch(raw):
                raise _error(f"malformed number '{raw}'", i)
            tokens.append(_Token("number", raw, float(raw) if "." in raw else int(raw), i))
        elif path := _PATH.match(text, i):
            end = path.end()
            if text[end : end + 1] == ".":
                raise _error("expected a name after '.'", end + 1)
            keys = tuple(path.group().split("."))
            if len(keys) == 1 and keys[0] in _KEYWORDS:
                tokens.append(_Token("keyword", keys[0], None, i))
            elif bad := _KEYWORD_KEY.search(path.group()):
                at = i + bad.start(1)
                raise ConditionSyntaxError(
                    f"'{bad[1]}' at position {at} is a keyword, not a name", at
                )
            else:
                tokens.append(_Token("name", path.group(), keys, i))
        elif op := next((o for o in _OPERATORS if text.startswith(o, i)), None):
            end = i + len(op)
            tokens.append(_Token("op", op, op, i))
        elif ch in "()[],":
            end = i + 1
            tokens.append(_Token("punct", ch, ch, i))
        elif ch == "-":
            raise _error("expected a digit after '-'", i + 1)
        elif ch == ".":
            raise _error("unexpected '.'", i)
        else:
            raise _error(f"unknown character {ch!r}", i, _HINTS.get(ch, ""))
        i = end


def _read_string(text: str, start: int) -> tuple[str, int]:
    """The value of the string literal at `start`, and the index just past its closing quote."""
    quote, i = text[start], start + 1
    out: list[str] = []
    while i < len(text):
        ch = text[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch in "\r\n":
            raise _error("line break in string", i, "; write \\n instead")
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        escape = text[i + 1 : i + 2]
        if escape == "u":
            if not _HEX4.fullmatch(text, i + 2, i + 6):
                raise _error("invalid \\u escape", i, "; expected four hex digits")
            code = int(text[i + 2 : i + 6], 16)
            if 0xD800 <= code < 0xE000:  # a pair would decode, but one character is clearer
                raise _error("lone surrogate in \\u escape", i, "; write the character itself")
            out.append(chr(code))
            i += 6
        elif escape in _ESCAPES:
            out.append(_ESCAPES[escape])
            i += 2
        elif escape == "":
            break
        elif escape in "\r\n":
            raise _error("line break in string", i + 1, "; write \\n instead")
        else:
            shown = f" '\\{escape}'" if escape.isprintable() else ""
            raise _error(f"invalid escape{shown}", i)
    raise ConditionSyntaxError(f"unterminated string starting at position {start}", start)


def _describe(token: _Token) -> str:
    """A token as quoted in a message, cut short so a long string cannot flood it."""
    if token.kind == "end":
        return "end of condition"
    return f"'{token.text}'" if len(token.text) <= 24 else f"'{token.text[:21]}...'"


class _Parser:
    """Recursive descent over the token list; one method per grammar rule."""

    def __init__(self, text: str) -> None:
        self._tokens = _tokenize(text)
        self._index = 0
        self._depth = 0

    def parse(self) -> Node:
        if self._peek().kind == "end":
            raise ConditionSyntaxError("empty condition", 0)
        node = self._or()
        token = self._peek()
        if token.kind != "end":
            hint = ""
            if token.kind == "name" and token.text.lower() in _KEYWORDS:
                hint = f"; keywords are lowercase ('{token.text.lower()}')"
            raise _error(f"unexpected {_describe(token)}", token.position, hint)
        return node

    def _peek(self) -> _Token:
        return self._tokens[self._index]  # never past the end: the `end` token is not consumed

    def _next(self) -> _Token:
        token = self._peek()
        self._index += 1
        return token

    def _is(self, kind: str, text: str) -> bool:
        token = self._peek()
        return token.kind == kind and token.text == text

    def _expected(self, what: str) -> ConditionSyntaxError:
        after = f" after {_describe(self._tokens[self._index - 1])}" if self._index else ""
        return _error(f"expected {what}{after}", self._peek().position)

    def _enter(self, token: _Token) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _error(f"condition is nested more than {MAX_DEPTH} levels deep", token.position)

    def _or(self) -> Node:
        return self._logic("or", self._and)

    def _and(self) -> Node:
        return self._logic("and", self._not)

    def _logic(self, op: str, operand: Callable[[], Node]) -> Node:
        operands = [operand()]
        while self._is("keyword", op):
            self._next()
            operands.append(operand())
        return operands[0] if len(operands) == 1 else Logic(op, tuple(operands))

    def _not(self) -> Node:
        if not self._is("keyword", "not"):
            return self._comparison()
        self._enter(self._next())
        node = Not(self._not())
        self._depth -= 1
        return node

    def _comparison(self) -> Node:
        left = self._operand()
        op = self._operator()
        if op is None:
            return left
        node = Compare(op, left, self._operand())
        position = self._peek().position
        if self._operator() is not None:
            raise ConditionSyntaxError(
                f"comparisons cannot be chained (position {position})", position
            )
        return node

    def _operator(self) -> str | None:
        """Consume a comparison operator if one is next; `not` here must begin `not in`."""
        token = self._peek()
        if token.kind == "op" or (token.kind == "keyword" and token.text == "in"):
            self._next()
            return token.text
        if token.kind == "keyword" and token.text == "not":
            self._next()
            if not self._is("keyword", "in"):
                raise self._expected("'in'")
            self._next()
            return "not in"
        return None

    def _operand(self) -> Node:
        token = self._peek()
        if token.kind == "name":
            self._next()
            return Path(token.value)
        if token.kind == "punct" and token.text == "(":
            self._enter(self._next())
            node = self._or()
            if not self._is("punct", ")"):
                at = self._peek().position
                message = (
                    f"expected ')' at position {at} to close the '(' at position {token.position}"
                )
                raise ConditionSyntaxError(message, at)
            self._next()
            self._depth -= 1
            return node
        if token.kind == "punct" and token.text == "[":
            self._next()
            items: list[Any] = []
            if not self._is("punct", "]"):
                items.append(self._literal())
                while self._is("punct", ","):
                    self._next()
                    items.append(self._literal())
            if not self._is("punct", "]"):
                raise self._expected("',' or ']'")
            self._next()
            return Literal(tuple(items))
        if token.kind in ("string", "number") or token.text in _CONSTANTS:
            return Literal(self._literal())
        raise self._expected("an operand")

    def _literal(self) -> Any:
        token = self._peek()
        if token.kind in ("string", "number"):
            self._next()
            return token.value
        if token.kind == "keyword" and token.text in _CONSTANTS:
            self._next()
            return _CONSTANTS[token.text]
        raise self._expected("a literal")


@dataclass(frozen=True, slots=True)
class Condition:
    """A parsed condition; `Condition(text)` parses too, so an instance is always valid."""

    source: str
    tree: Node = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.source) > MAX_LENGTH:
            raise ConditionSyntaxError(
                f"condition is longer than {MAX_LENGTH} characters", MAX_LENGTH
            )
        object.__setattr__(self, "tree", _Parser(self.source).parse())

    def evaluate(self, document: Mapping[str, Any]) -> bool:
        """Whether the condition holds for `document` (as the API shows it); never raises."""
        return _truthy(_evaluate(self.tree, document))


def parse(text: str) -> Condition:
    """Parse `text`, or raise ConditionSyntaxError naming what is wrong and where."""
    return Condition(text)


def _evaluate(node: Node, document: Mapping[str, Any]) -> Any:
    """The value of `node`: a document value or literal for operands, a bool for the rest."""
    if isinstance(node, Path):
        value: Any = document
        for key in node.keys:
            if not isinstance(value, Mapping) or key not in value:
                return None
            value = value[key]
        return value
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Not):
        return not _truthy(_evaluate(node.operand, document))
    if isinstance(node, Logic):
        truths = (_truthy(_evaluate(o, document)) for o in node.operands)
        return all(truths) if node.op == "and" else any(truths)
    left, right = _evaluate(node.left, document), _evaluate(node.right, document)
    if node.op in ("==", "!="):
        return _equal(left, right) == (node.op == "==")
    if node.op in ("in", "not in"):
        return _contains(right, left) is (node.op == "in")
    if json_type(left) == json_type(right) and json_type(left) in ("number", "string"):
        return _ORDER[node.op](left, right)
    return False


def _truthy(value: Any) -> bool:
    """Python's truthiness restricted to JSON: null, false, 0, "", [] and {} are false."""
    kind = json_type(value)
    if kind in ("null", "boolean", "number"):
        return bool(value)
    return kind == "other" or len(value) > 0


def _equal(a: Any, b: Any) -> bool:
    """JSON equality, iterative so that deep or even cyclic documents cannot overflow the stack."""
    pending = [(a, b)]
    seen: set[tuple[int, int]] = set()
    while pending:
        x, y = pending.pop()
        kind = json_type(x)
        if kind != json_type(y) or kind == "other":
            return False
        if kind in ("array", "object"):
            if (id(x), id(y)) in seen:
                continue  # already being compared further up: a cycle, assume equal
            seen.add((id(x), id(y)))
            if kind == "array":
                if len(x) != len(y):
                    return False
                pending.extend(zip(x, y, strict=True))
            else:
                if len(x) != len(y) or any(key not in y for key in x):
                    return False
                pending.extend((x[key], y[key]) for key in x)
        elif x != y:
            return False
    return True


def _contains(container: Any, item: Any) -> bool | None:
    """`item in container`, or None when the types make the question meaningless."""
    kind = json_type(container)
    if kind == "array":
        return any(_equal(item, member) for member in container)
    if kind == "string" and json_type(item) == "string":
        return item in container
    return None
