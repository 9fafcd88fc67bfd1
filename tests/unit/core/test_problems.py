"""One problem of a file, as every place shows it: `file:line: message`."""

from __future__ import annotations

from mockserver.core.errors import ScenarioError
from mockserver.core.problems import Problem, block, parse_block, problems_of


def test_a_problem_reads_as_file_line_message() -> None:
    assert str(Problem("a.yaml", 3, "no document 'doc_x'")) == "a.yaml:3: no document 'doc_x'"
    warned = Problem("a.yaml", 4, "no such key", "warning")
    assert str(warned) == "a.yaml:4: warning: no such key"


def test_a_load_error_gives_every_problem_in_its_order() -> None:
    error = ScenarioError.every([ScenarioError("a.yaml", 2, "x"), ScenarioError("a.yaml", 5, "y")])
    problems = problems_of(error)
    assert problems == [Problem("a.yaml", 2, "x"), Problem("a.yaml", 5, "y")]
    assert block(problems) == str(error) == "a.yaml:2: x\na.yaml:5: y"


def test_a_block_reads_back_into_its_problems() -> None:
    problems = [Problem("a.yaml", 2, "x: y"), Problem("a.yaml", 7, "z", "warning")]
    assert parse_block(block(problems), "a.yaml") == problems
    assert parse_block("Account follows the server clock.", "a.yaml") == [
        Problem("a.yaml", 0, "Account follows the server clock.")
    ]
