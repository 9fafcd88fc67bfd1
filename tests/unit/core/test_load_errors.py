"""A load error that stands for several problems of a file, as the CLI prints it."""

from __future__ import annotations

from mockserver.core.errors import LoadError, ScenarioError


def test_the_problems_of_an_error_can_be_sorted_and_joined_again() -> None:
    first = ScenarioError.every([ScenarioError("s.yaml", 9, "c"), ScenarioError("s.yaml", 2, "a")])
    second = ScenarioError("s.yaml", 5, "b")
    problems: list[LoadError] = [*first.problems, second]
    joined = ScenarioError.every(sorted(problems, key=lambda problem: problem.line))
    assert str(joined).splitlines() == ["s.yaml:2: a", "s.yaml:5: b", "s.yaml:9: c"]
    assert (joined.file, joined.line, joined.message) == ("s.yaml", 2, "a")
    assert [len(problem.problems) for problem in joined.problems] == [1, 1, 1]
