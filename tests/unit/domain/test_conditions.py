"""Workflow step conditions: parsing, error positions, evaluation semantics, and robustness."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import pickle
import string
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mockserver.domain.conditions import (
    MAX_DEPTH,
    MAX_LENGTH,
    Compare,
    Condition,
    ConditionSyntaxError,
    Literal,
    Logic,
    Node,
    Not,
    Path,
    parse,
)

DOC: dict[str, Any] = {
    "id": "doc_1",
    "title": 'Master "NDA" 2024',
    "status": "draft",
    "vault_id": "vault_1",
    "version": 3,
    "metadata": {
        "amount": 25000,
        "kind": "nda",
        "rate": 2.5,
        "urgent": True,
        "archived": False,
        "count": 0,
        "note": "",
        "tags": ["legal", "q3"],
        "empty": [],
        "nothing": {},
        "nested": {"level": 2},
        "none": None,
    },
}


def holds(text: str, document: Any = DOC) -> bool:
    return parse(text).evaluate(document)


def syntax_error(text: str) -> ConditionSyntaxError:
    with pytest.raises(ConditionSyntaxError) as info:
        parse(text)
    return info.value


def p(*keys: str) -> Path:
    return Path(keys)


# --- the API ------------------------------------------------------------------------------------


def test_parse_keeps_the_source_and_conditions_compare_by_it() -> None:
    text = '  metadata.amount > 10000 and metadata.kind == "nda"\n'
    condition = parse(text)
    assert condition.source == text
    assert condition == Condition(text) == parse(text)
    assert hash(condition) == hash(parse(text))
    assert condition != parse("metadata.amount > 10000")
    assert "tree" not in repr(condition)
    with pytest.raises(dataclasses.FrozenInstanceError):
        condition.source = "x"  # type: ignore[misc]


def test_conditions_survive_copy_and_pickle() -> None:
    condition = parse('a == 1 and b in [1, "x"]')
    for clone in (copy.deepcopy(condition), pickle.loads(pickle.dumps(condition))):
        assert clone == condition
        assert clone.tree == condition.tree
        assert clone.evaluate({"a": 1, "b": "x"})


def test_a_condition_cannot_be_built_from_bad_text() -> None:
    with pytest.raises(ConditionSyntaxError):
        Condition("a ==")


def test_syntax_error_is_a_value_error_with_message_and_position() -> None:
    error = syntax_error("a == )")
    assert isinstance(error, ValueError)
    assert str(error) == error.message == "expected an operand after '==' at position 5"
    assert error.position == 5


def test_evaluate_returns_a_bool_not_the_operand() -> None:
    assert parse("metadata.amount").evaluate(DOC) is True
    assert parse("metadata.note").evaluate(DOC) is False
    assert parse('"x"').evaluate({}) is True


def test_evaluate_accepts_any_mapping() -> None:
    document = MappingProxyType({"metadata": MappingProxyType({"kind": "nda"})})
    assert holds('metadata.kind == "nda"', document)


def test_python_is_not_reachable() -> None:
    assert syntax_error("__import__('os')").message == "unexpected '(' at position 10"
    assert holds("__class__ == null")  # just a key the document does not have


# --- tree shape: precedence and grouping ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("a", p("a")),
        ("a.b.c", p("a", "b", "c")),
        ("not a or b", Logic("or", (Not(p("a")), p("b")))),
        ("a or b and c", Logic("or", (p("a"), Logic("and", (p("b"), p("c")))))),
        ("a and b or c", Logic("or", (Logic("and", (p("a"), p("b"))), p("c")))),
        ("(a or b) and c", Logic("and", (Logic("or", (p("a"), p("b"))), p("c")))),
        ("a or b or c", Logic("or", (p("a"), p("b"), p("c")))),
        ("a and b and c", Logic("and", (p("a"), p("b"), p("c")))),
        ("not a == 1", Not(Compare("==", p("a"), Literal(1)))),
        ("not not a", Not(Not(p("a")))),
        ("not (a and b)", Not(Logic("and", (p("a"), p("b"))))),
        ("a not in [1, 'x']", Compare("not in", p("a"), Literal((1, "x")))),
        ("a in b", Compare("in", p("a"), p("b"))),
        ("((a))", p("a")),
        ("(a == 1) == true", Compare("==", Compare("==", p("a"), Literal(1)), Literal(True))),
        ("a>=-1", Compare(">=", p("a"), Literal(-1))),
        ("x<=y", Compare("<=", p("x"), p("y"))),
        ("\ta\n!=\r\nnull ", Compare("!=", p("a"), Literal(None))),
        ("_a.B_2 > 'z'", Compare(">", p("_a", "B_2"), Literal("z"))),
        ("andy or notice or in_", Logic("or", (p("andy"), p("notice"), p("in_")))),
        ("nullable and false_", Logic("and", (p("nullable"), p("false_")))),
        ("True == FALSE", Compare("==", p("True"), p("FALSE"))),
        ("[]", Literal(())),
        ("[null, true, false, -2.5, '']", Literal((None, True, False, -2.5, ""))),
    ],
)
def test_tree(text: str, tree: Node) -> None:
    assert parse(text).tree == tree


PRECEDENCE: list[tuple[str, Callable[[bool, bool, bool], bool]]] = [
    ("not a or b", lambda a, b, c: (not a) or b),
    ("a or b and c", lambda a, b, c: a or (b and c)),
    ("a and b or c", lambda a, b, c: (a and b) or c),
    ("(a or b) and c", lambda a, b, c: (a or b) and c),
    ("not (a or b)", lambda a, b, c: not (a or b)),
    ("not a and not b", lambda a, b, c: (not a) and (not b)),
    ("a and not b or c", lambda a, b, c: (a and not b) or c),
    ("not a == b", lambda a, b, c: a != b),
    ("a == b and c", lambda a, b, c: a == b and c),
    ("a or b == c", lambda a, b, c: a or b == c),
    ("not not (a and (b or not c))", lambda a, b, c: a and (b or not c)),
]


@pytest.mark.parametrize(("text", "reference"), PRECEDENCE, ids=[t for t, _ in PRECEDENCE])
def test_precedence_matches_python_for_every_input(
    text: str, reference: Callable[[bool, bool, bool], bool]
) -> None:
    for a, b, c in itertools.product([False, True], repeat=3):
        assert holds(text, {"a": a, "b": b, "c": c}) == reference(a, b, c), (a, b, c)


# --- literals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("10000", 10000),
        ("-3", -3),
        ("0", 0),
        ("-0", 0),
        ("007", 7),
        ("2.5", 2.5),
        ("-0.25", -0.25),
        ("123456789012345678901234567890", 123456789012345678901234567890),
        ("true", True),
        ("false", False),
        ("null", None),
        ('"plain"', "plain"),
        ("'single'", "single"),
        ('""', ""),
        ("''", ""),
        ('"it\'s"', "it's"),
        ("'say \"hi\"'", 'say "hi"'),
        ('"say \\"hi\\""', 'say "hi"'),
        ("'it\\'s'", "it's"),
        ('"\\\'"', "'"),
        ('"back\\\\slash"', "back\\slash"),
        ('"tab\\there"', "tab\there"),
        ('"line\\nbreak"', "line\nbreak"),
        ('"\\u00e9t\\u00C9"', "étÉ"),
        ('"\\u0041\\u0000"', "A\x00"),
        ('"\\\\u0041"', "\\u0041"),
        ('"snow ☃ 😀"', "snow ☃ 😀"),
        ('"a and b or (c)"', "a and b or (c)"),
        ('"tab\tinside"', "tab\tinside"),
    ],
)
def test_literal_values(source: str, value: Any) -> None:
    tree = parse(f"x == {source}").tree
    assert isinstance(tree, Compare)
    assert isinstance(tree.right, Literal)
    assert tree.right.value == value
    assert type(tree.right.value) is type(value)


# --- evaluation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # equality: JSON semantics, numbers numerically, booleans only equal booleans
        ('status == "draft"', True),
        ("status == 'draft'", True),
        ('status != "draft"', False),
        ('status == "Draft"', False),
        ("version == 3", True),
        ("version == 3.0", True),
        ("version != 3.0", False),
        ("metadata.rate == 2.5", True),
        ('metadata.amount == "25000"', False),
        ('metadata.amount != "25000"', True),
        ("metadata.urgent == true", True),
        ("metadata.urgent == 1", False),
        ("metadata.urgent != 1", True),
        ("metadata.archived == 0", False),
        ("metadata.count == false", False),
        ("metadata.count == 0", True),
        ("metadata.count == -0", True),
        ("metadata.none == null", True),
        ("metadata.missing == null", True),
        ("metadata.missing != null", False),
        ("null == false", False),
        ('"" == false', False),
        ('metadata.tags == ["legal", "q3"]', True),
        ('metadata.tags == ["q3", "legal"]', False),
        ('metadata.tags == ["legal"]', False),
        ("metadata.empty == []", True),
        ("metadata.nothing == []", False),
        ("metadata.nested == metadata.nested", True),
        ("metadata.nested == metadata.nothing", False),
        ("[1, 2] == [1.0, 2.0]", True),
        ("[true] == [1]", False),
        ("metadata == null", False),
        ("id == vault_id", False),
        # ordering: two numbers or two strings, otherwise false
        ("metadata.amount > 10000", True),
        ("metadata.amount >= 25000", True),
        ("metadata.amount > 25000", False),
        ("metadata.amount < 25000.5", True),
        ("metadata.amount <= 25000", True),
        ("metadata.amount < 25000", False),
        ("metadata.rate > 2", True),
        ("metadata.rate < -3", False),
        ("-3 < -2.5", True),
        ("-0.5 > -1", True),
        ('status < "e"', True),
        ('status > "draft"', False),
        ('status >= "draft"', True),
        ('"abc" < "abd"', True),
        ('"Z" < "a"', True),
        ('metadata.amount > "100"', False),
        ('metadata.amount <= "100"', False),
        ('"100" < metadata.amount', False),
        ("metadata.urgent > 0", False),
        ("metadata.urgent >= true", False),
        ("metadata.archived < 1", False),
        ("metadata.missing < 1", False),
        ("metadata.missing >= null", False),
        ("metadata.tags > []", False),
        ("metadata.nested > metadata.nothing", False),
        # in / not in
        ('"legal" in metadata.tags', True),
        ('"tax" in metadata.tags', False),
        ('"tax" not in metadata.tags', True),
        ('"legal" not in metadata.tags', False),
        ('status in ["draft", "in_review"]', True),
        ('status not in ["draft", "in_review"]', False),
        ('status in ["signed"]', False),
        ('status not in ["signed"]', True),
        ("version in [1, 2, 3.0]", True),
        ("metadata.urgent in [1]", False),
        ("metadata.urgent not in [1]", True),
        ("1 in [true]", False),
        ("true in [true]", True),
        ("0 in [false, null]", False),
        ("null in [null]", True),
        ("metadata.missing in [null]", True),
        ("x in []", False),
        ("x not in []", True),
        ('"NDA" in title', True),
        ('"nda" in title', False),
        ('"nda" not in title', True),
        ('"" in status', True),
        ('"raf" in status', True),
        ('"raf" not in status', False),
        ("metadata.tags in metadata.tags", False),
        ("metadata.tags not in metadata.tags", True),
        # ill-typed membership: both `in` and `not in` are false
        ("3 in status", False),
        ("3 not in status", False),
        ('"draft" in metadata.nested', False),
        ('"draft" not in metadata.nested', False),
        ('"x" in metadata.missing', False),
        ('"x" not in metadata.missing', False),
        ("metadata.tags in status", False),
        ("metadata.tags not in status", False),
        ("1 in 1", False),
        ("1 not in 1", False),
        # paths: missing keys and non-mappings along the way are null
        ('id == "doc_1"', True),
        ("metadata.nested.level == 2", True),
        ("status.deeper == null", True),
        ("metadata.tags.legal == null", True),
        ("metadata.nested.level.x == null", True),
        ("metadata.none.x == null", True),
        ("nope.nope.nope == null", True),
        # truthiness of bare operands
        ("metadata.urgent", True),
        ("metadata.archived", False),
        ("metadata.count", False),
        ("metadata.amount", True),
        ("metadata.rate", True),
        ("metadata.note", False),
        ("title", True),
        ("metadata.tags", True),
        ("metadata.empty", False),
        ("metadata.nothing", False),
        ("metadata.nested", True),
        ("metadata.none", False),
        ("metadata.missing", False),
        ("0", False),
        ("0.0", False),
        ("-1", True),
        ('""', False),
        ('"0"', True),
        ('"false"', True),
        ("[]", False),
        ("[0]", True),
        ("null", False),
        ("true", True),
        ("false", False),
        ("not metadata.missing", True),
        ("not not metadata.urgent", True),
        # logic
        ('metadata.amount > 10000 and metadata.kind == "nda"', True),
        ('metadata.amount > 10000 and metadata.kind == "msa"', False),
        ('metadata.kind == "msa" or metadata.urgent', True),
        ('not metadata.urgent or status == "draft"', True),
        ('not (metadata.urgent or status == "signed")', False),
        ("metadata.archived or metadata.count or metadata.note", False),
        ("metadata.urgent and metadata.amount and title", True),
        ("(metadata.urgent)", True),
        ('((((status == "draft"))))', True),
        ("(metadata.urgent and true) == true", True),
        ("(metadata.amount and 0) == false", True),
        ("(1 == 1) == (2 == 2)", True),
        ("(metadata.amount > 1) in [true]", True),
        ("(metadata.amount > 1) > 0", False),
    ],
)
def test_evaluate(text: str, expected: bool) -> None:
    assert holds(text) is expected


@pytest.mark.parametrize(
    ("value", "truthy"),
    [
        (None, False),
        (False, False),
        (True, True),
        (0, False),
        (0.0, False),
        (-0.0, False),
        (1, True),
        (-0.5, True),
        ("", False),
        (" ", True),
        ([], False),
        ([None], True),
        ((), False),
        ({}, False),
        ({"a": None}, True),
        (float("nan"), True),
        (object(), True),
    ],
)
def test_truthiness(value: Any, truthy: bool) -> None:
    assert holds("v", {"v": value}) is truthy
    assert holds("not v", {"v": value}) is not truthy


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("v == v", float("nan"), False),
        ("v != v", float("nan"), True),
        ("v > 1", float("nan"), False),
        ("v < 1", float("nan"), False),
        ("v > 1.5", 10**400, True),
        ("v < 99999999999999999999999999999999999999.5", 10**400, False),
        ("v == 1", 10**400, False),
        ("v > 1", float("inf"), True),
        ("v == v", object(), False),
        ("v == null", object(), False),
        ("v > 1", b"2", False),
        ("v == 'x'", b"x", False),
        ("v in ['x']", {"x"}, False),
        ("'x' in v", {"x"}, False),
        ("'x' not in v", {"x"}, False),
        ("v.x == null", [1], True),
        ("v == [1, 2]", (1, 2), True),
        ("'a' in v", ("a",), True),
    ],
)
def test_odd_document_values_never_raise(text: str, value: Any, expected: bool) -> None:
    assert holds(text, {"v": value}) is expected


def test_non_mapping_document_gives_null_paths() -> None:
    assert holds("a == null", [])
    assert holds("not a", None)


def test_very_deep_documents_compare_without_recursion() -> None:
    left: list[Any] = []
    right: list[Any] = []
    for _ in range(50_000):
        left, right = [left], [right]
    assert holds("a == b", {"a": left, "b": right})
    assert not holds("a == b", {"a": left, "b": [right]})
    assert holds("a in [1, 2]", {"a": left}) is False


def test_cyclic_documents_compare_and_terminate() -> None:
    first: dict[str, Any] = {"k": 1}
    first["self"] = first
    second: dict[str, Any] = {"k": 1}
    second["self"] = second
    third: dict[str, Any] = {"k": 2}
    third["self"] = third
    ring: list[Any] = []
    ring.append(ring)
    document = {"a": first, "b": second, "c": third, "r": ring}
    assert holds("a == b and a == a and a.self.self.k == 1", document)
    assert holds("a != c and r == r and r != a", document)


# --- limits ---------------------------------------------------------------------------------------


def test_nesting_at_the_limit_parses_and_one_more_does_not() -> None:
    assert holds("(" * MAX_DEPTH + "true" + ")" * MAX_DEPTH)
    error = syntax_error("(" * (MAX_DEPTH + 1) + "true" + ")" * (MAX_DEPTH + 1))
    assert error.position == MAX_DEPTH
    assert error.message == f"condition is nested more than 32 levels deep at position {MAX_DEPTH}"


def test_not_chains_count_towards_the_limit() -> None:
    assert holds("not " * MAX_DEPTH + "true")  # 32 is even
    error = syntax_error("not " * (MAX_DEPTH + 1) + "false")
    assert error.position == 4 * MAX_DEPTH
    assert error.message == "condition is nested more than 32 levels deep at position 128"


def test_mixed_nesting_counts_parentheses_and_nots_together() -> None:
    assert holds("not (" * 16 + "true" + ")" * 16)
    error = syntax_error("(not " * 16 + "(x)" + ")" * 16)
    assert error.position == 5 * 16


def test_depth_is_nesting_not_a_count() -> None:
    siblings = " and ".join(["(" * MAX_DEPTH + "true" + ")" * MAX_DEPTH] * 8)
    assert len(siblings) <= MAX_LENGTH
    assert holds(siblings)
    assert holds(" or ".join(["not " * MAX_DEPTH + "true"] * 7))
    assert holds(" and ".join(["a == 1"] * 90), {"a": 1})


def test_length_limit() -> None:
    at_limit = "a == 1" + " " * (MAX_LENGTH - 6)
    assert len(at_limit) == MAX_LENGTH == 1000
    assert holds(at_limit, {"a": 1})
    assert holds("a" * MAX_LENGTH, {"a" * MAX_LENGTH: True})
    error = syntax_error(at_limit + " ")
    assert error.message == "condition is longer than 1000 characters"
    assert error.position == MAX_LENGTH


# --- bad syntax: every error names its position ---------------------------------------------------

BAD: list[tuple[str, str, int]] = [
    ("", "empty condition", 0),
    ("   \t\n", "empty condition", 0),
    # stray and missing operands
    ("a == 1)", "unexpected ')' at position 6", 6),
    ('metadata.a == "x")', "unexpected ')' at position 17", 17),
    ("a == 1 b", "unexpected 'b' at position 7", 7),
    ("a == 1 (b)", "unexpected '(' at position 7", 7),
    ("a 'x'", "unexpected ''x'' at position 2", 2),
    ("a [1]", "unexpected '[' at position 2", 2),
    ("a == 1 ,", "unexpected ',' at position 7", 7),
    ("a ]", "unexpected ']' at position 2", 2),
    ("a -1", "unexpected '-1' at position 2", 2),
    ("a true", "unexpected 'true' at position 2", 2),
    ("a AND b", "unexpected 'AND' at position 2; keywords are lowercase ('and')", 2),
    ("a == 1 Or b", "unexpected 'Or' at position 7; keywords are lowercase ('or')", 7),
    (
        "a 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'",
        "unexpected ''yyyyyyyyyyyyyyyyyyyy...' at position 2",
        2,
    ),
    ("a ==", "expected an operand after '==' at position 4", 4),
    ("a == ", "expected an operand after '==' at position 5", 5),
    ("a == )", "expected an operand after '==' at position 5", 5),
    ('metadata.kind == "x" and b == ', "expected an operand after '==' at position 30", 30),
    ("a != and", "expected an operand after '!=' at position 5", 5),
    ("a < not b", "expected an operand after '<' at position 4", 4),
    ("a >= ]", "expected an operand after '>=' at position 5", 5),
    ("a in", "expected an operand after 'in' at position 4", 4),
    ("a not in", "expected an operand after 'in' at position 8", 8),
    ("a and", "expected an operand after 'and' at position 5", 5),
    ("a or or b", "expected an operand after 'or' at position 5", 5),
    ("a and (b or not)", "expected an operand after 'not' at position 15", 15),
    ("or a", "expected an operand at position 0", 0),
    ("== 1", "expected an operand at position 0", 0),
    (")", "expected an operand at position 0", 0),
    ("in", "expected an operand at position 0", 0),
    ("()", "expected an operand after '(' at position 1", 1),
    ("not", "expected an operand after 'not' at position 3", 3),
    ("not in a", "expected an operand after 'not' at position 4", 4),
    ("a == not b", "expected an operand after '==' at position 5", 5),
    # comparisons do not chain
    ("a < b < c", "comparisons cannot be chained (position 6)", 6),
    ("a == b != c", "comparisons cannot be chained (position 7)", 7),
    ("a == b in c", "comparisons cannot be chained (position 7)", 7),
    ("a in b not in c", "comparisons cannot be chained (position 7)", 7),
    ("1 < 2 == true", "comparisons cannot be chained (position 6)", 6),
    ("a not b", "expected 'in' after 'not' at position 6", 6),
    ("a not", "expected 'in' after 'not' at position 5", 5),
    ("a not not in b", "expected 'in' after 'not' at position 6", 6),
    # parentheses and lists
    ("(a == 1", "expected ')' at position 7 to close the '(' at position 0", 7),
    ("((a) == 1", "expected ')' at position 9 to close the '(' at position 0", 9),
    ("x and (a or (b)", "expected ')' at position 15 to close the '(' at position 6", 15),
    ("(a b)", "expected ')' at position 3 to close the '(' at position 0", 3),
    ("a in [1, 2", "expected ',' or ']' after '2' at position 10", 10),
    ("a in [1 2]", "expected ',' or ']' after '1' at position 8", 8),
    ("a in [", "expected a literal after '[' at position 6", 6),
    ("a in [1,]", "expected a literal after ',' at position 8", 8),
    ("a in [,]", "expected a literal after '[' at position 6", 6),
    ("a in [b]", "expected a literal after '[' at position 6", 6),
    ("a in [[1]]", "expected a literal after '[' at position 6", 6),
    ("a in [1, (2)]", "expected a literal after ',' at position 9", 9),
    ("a in [1, not]", "expected a literal after ',' at position 9", 9),
    # characters
    ("a $ b", "unknown character '$' at position 2", 2),
    ("a == 1 % 2", "unknown character '%' at position 7", 7),
    ("a = 1", "unknown character '=' at position 2; use '=='", 2),
    ("a && b", "unknown character '&' at position 2; use 'and'", 2),
    ("a || b", "unknown character '|' at position 2; use 'or'", 2),
    ("!a", "unknown character '!' at position 0; use '!=' or 'not'", 0),
    ("a == é", "unknown character 'é' at position 5", 5),
    ("caf\u00e9 == 1", "unknown character 'é' at position 3", 3),
    ("a\x00", "unknown character '\\x00' at position 1", 1),
    ("a\u00a0== 1", "unknown character '\\xa0' at position 1", 1),
    ("a == `x`", "unknown character '`' at position 5", 5),
    ("{a}", "unknown character '{' at position 0", 0),
    # strings
    ("a == 'abc", "unterminated string starting at position 5", 5),
    ('a == "abc', "unterminated string starting at position 5", 5),
    ("a == \"abc'", "unterminated string starting at position 5", 5),
    ('a == "abc\\"', "unterminated string starting at position 5", 5),
    ('"abc\\', "unterminated string starting at position 0", 0),
    ('"a\nb"', "line break in string at position 2; write \\n instead", 2),
    ('"a\r\nb"', "line break in string at position 2; write \\n instead", 2),
    ('"a\\\nb"', "line break in string at position 3; write \\n instead", 3),
    ('"\\q"', "invalid escape '\\q' at position 1", 1),
    ('x == "ok\\/"', "invalid escape '\\/' at position 8", 8),
    ('"\\x41"', "invalid escape '\\x' at position 1", 1),
    ('"\\\x00"', "invalid escape at position 1", 1),
    ('"\\u12"', "invalid \\u escape at position 1; expected four hex digits", 1),
    ('"\\u12g4"', "invalid \\u escape at position 1; expected four hex digits", 1),
    ('"\\U0041"', "invalid escape '\\U' at position 1", 1),
    ('"\\u"', "invalid \\u escape at position 1; expected four hex digits", 1),
    (
        '"\\ud83d\\ude00"',
        "lone surrogate in \\u escape at position 1; write the character itself",
        1,
    ),
    # numbers
    ("10abc", "malformed number '10abc' at position 0", 0),
    ("a == 1.", "malformed number '1.' at position 5", 5),
    ("a == 1.2.3", "malformed number '1.2.3' at position 5", 5),
    ("a == 1e5", "malformed number '1e5' at position 5", 5),
    ("a == -1.x", "malformed number '-1.x' at position 5", 5),
    ("a == 0x1F", "malformed number '0x1F' at position 5", 5),
    ("a == 1_000", "malformed number '1_000' at position 5", 5),
    ("a == -", "expected a digit after '-' at position 6", 6),
    ("a == - 1", "expected a digit after '-' at position 6", 6),
    ("a == -b", "expected a digit after '-' at position 6", 6),
    ("a == --1", "expected a digit after '-' at position 6", 6),
    ("a == +1", "unknown character '+' at position 5", 5),
    ("a == .5", "unexpected '.' at position 5", 5),
    ("a == ٣", "unknown character '٣' at position 5", 5),
    # paths
    ("a.", "expected a name after '.' at position 2", 2),
    ("a..b", "expected a name after '.' at position 2", 2),
    ("a. b", "expected a name after '.' at position 2", 2),
    ("metadata.1st", "expected a name after '.' at position 9", 9),
    ("a .b", "unexpected '.' at position 2", 2),
    (".a", "unexpected '.' at position 0", 0),
    ("metadata.in == 1", "'in' at position 9 is a keyword, not a name", 9),
    ("true.x", "'true' at position 0 is a keyword, not a name", 0),
    ("a.b.null.c", "'null' at position 4 is a keyword, not a name", 4),
    # positions count every character, line breaks included
    ("a ==\n\n)", "expected an operand after '==' at position 6", 6),
    ("a == 1\nand\n", "expected an operand after 'and' at position 11", 11),
]


@pytest.mark.parametrize(("text", "message", "position"), BAD, ids=[repr(t) for t, _, _ in BAD])
def test_bad_syntax(text: str, message: str, position: int) -> None:
    error = syntax_error(text)
    assert (error.message, error.position) == (message, position)
    assert 0 <= error.position <= len(text)


# --- properties -----------------------------------------------------------------------------------

KEYS = ["a", "b", "status", "metadata", "kind", "x_1"]
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6))
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)
documents = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=3), json_values, max_size=6)

TOKENS = [
    *KEYS, "a.b", "metadata.kind", "and", "or", "not", "in", "true", "false", "null",
    "==", "!=", ">", ">=", "<", "<=", "(", ")", "[", "]", ",", ".", "-", "0", "-3", "2.5",
    '"x"', "'y'", '"', "'", "\\", '"\\n"', '"\\u00e9"', "\n", "=", "!", "$", "1e5",
]  # fmt: skip
token_soup = st.lists(st.sampled_from(TOKENS), max_size=25).flatmap(
    lambda tokens: st.sampled_from([" ", ""]).map(lambda sep: sep.join(tokens))
)


def quote(text: str, mark: str) -> str:
    """`text` as a string literal of the condition language."""
    escaped = {"\\": "\\\\", mark: "\\" + mark, "\n": "\\n", "\t": "\\t", "\r": "\\u000d"}
    return mark + "".join(escaped.get(ch, ch) for ch in text) + mark


paths = st.lists(st.sampled_from(KEYS), min_size=1, max_size=3).map(".".join)
literals = st.one_of(
    st.builds(quote, st.text(max_size=6), st.sampled_from(["'", '"'])),
    st.integers(-(10**6), 10**6).map(str),
    st.builds("{}.{}".format, st.integers(-100, 100), st.integers(0, 99)),
    st.sampled_from(["true", "false", "null"]),
)
operands = st.one_of(
    paths, literals, st.lists(literals, max_size=3).map(lambda items: f"[{', '.join(items)}]")
)
operators = st.sampled_from(["==", "!=", ">", ">=", "<", "<=", "in", "not in"])


def compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    operand = operands | inner.map(lambda e: f"({e})")
    return st.one_of(
        st.builds("{} {} {}".format, operand, operators, operand),
        inner.map("not {}".format),
        st.builds("{} {} {}".format, inner, st.sampled_from(["and", "or"]), inner),
    )


conditions = st.recursive(
    operands | st.builds("{} {} {}".format, operands, operators, operands),
    compound,
    max_leaves=12,
)


def parses_or_syntax_error(text: str) -> Condition | None:
    try:
        return parse(text)
    except ConditionSyntaxError as caught:
        error = caught
    assert 0 <= error.position <= len(text)
    assert str(error) == error.message
    return None


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=string.printable, max_size=120))
def test_printable_text_parses_or_raises_only_syntax_errors(text: str) -> None:
    condition = parses_or_syntax_error(text)
    if condition is not None:
        assert isinstance(condition.evaluate(DOC), bool)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_unicode_text_parses_or_raises_only_syntax_errors(text: str) -> None:
    parses_or_syntax_error(text)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(token_soup, documents)
def test_token_soup_parses_or_raises_and_evaluates_to_a_bool(text: str, document: Any) -> None:
    condition = parses_or_syntax_error(text)
    if condition is not None:
        assert isinstance(condition.evaluate(document), bool)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(conditions, documents)
def test_grammatical_conditions_parse_and_never_raise_on_any_document(
    text: str, document: Any
) -> None:
    assume(len(text) <= MAX_LENGTH - 6)
    condition = parse(text)
    result = condition.evaluate(document)
    assert isinstance(result, bool)
    assert parse(f"not ({text})").evaluate(document) is not result


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(operands, operands, documents)
def test_not_equal_is_the_negation_of_equal(left: str, right: str, document: Any) -> None:
    assert holds(f"{left} != {right}", document) is not holds(f"{left} == {right}", document)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.sampled_from(["'", '"']))
def test_any_string_round_trips_through_a_literal(text: str, mark: str) -> None:
    tree = parse(f"x == {quote(text, mark)}").tree
    assert isinstance(tree, Compare)
    assert tree.right == Literal(text)
    assert holds(f"x == {quote(text, mark)}", {"x": text})


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_a_document_value_equals_itself_unless_it_holds_nan(value: Any) -> None:
    def has_nan(v: Any) -> bool:
        if isinstance(v, float):
            return v != v
        if isinstance(v, list):
            return any(map(has_nan, v))
        if isinstance(v, dict):
            return any(map(has_nan, v.values()))
        return False

    assert holds("a == b", {"a": value, "b": value}) is not has_nan(value)
