"""Scenario files that are wrong: one broken file per class of error, each reported as
`file:line: message` at the line of the problem."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mockserver.core.errors import ScenarioError
from mockserver.scenarios.loader import (
    load_scenario,
    load_scenario_text,
    looks_like_seed,
    read_scenario_text,
)
from tests.support.scenarios import alias_bomb

GOOD = """\
name: demo
clock:
  freeze: true
rules:
  - name: boom
    match:
      method: POST
      path: /v1/documents
      nth: 2
    respond:
      status: 503
      error: {message: down}
webhooks:
  - name: down
    fault: fail
deprecations:
  - path: /v1/vaults
    deprecation: 2026-01-01T00:00:00Z
    sunset: 2027-01-01T00:00:00Z
timeline:
  - after: 60
    do:
      - disable: boom
steps:
  - request: {method: GET, path: /v1/whoami}
    capture: {acct: body.account_id}
  - request: {method: GET, path: "/v1/vaults/${acct}"}
"""


def error_of(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_scenario_text(textwrap.dedent(text), "bad.yaml")
    return caught.value


def test_the_good_file_loads() -> None:
    scenario = load_scenario_text(GOOD, "good.yaml")
    assert scenario.name == "demo"
    assert [r.name for r in scenario.rules] == ["boom"]
    assert scenario.rules[0].respond.error is not None
    assert scenario.rules[0].respond.error.type == "api_error"  # the status's default type
    assert scenario.deprecations[0].sunset == 1798761600
    assert [step.kind for step in scenario.steps] == ["request", "request"]


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        # YAML itself
        ("clock:\n  freeze: true", "clock:\n  freeze: [true", 4, "invalid YAML"),
        ("  - name: down\n", "  - name: down\n    name: again\n", 15, "duplicate key 'name'"),
        # schema: unknown fields, with a hint
        ("clock:", "clok:", 2, "unknown field 'clok' (did you mean 'clock'?)"),
        ("      nth: 2", "      nht: 2", 9, "rules[0].match.nht: unknown field 'nht'"),
        ("{message: down}", "{mesage: down}", 12, "unknown field 'mesage'"),
        # schema: required, types, enums, ranges, patterns
        ("  - name: boom\n", "  - nome: boom\n", 5, "rules[0].nome: unknown field"),
        ("    fault: fail\n", "    fault: explode\n", 15, "must be one of: fail, timeout"),
        ("      nth: 2", "      nth: 0", 9, "rules[0].match.nth: must be at least 1"),
        ("      nth: 2", "      nth: two", 9, "must be a whole number"),
        ("      status: 503", "      status: 999", 11, "must be at most 599"),
        ("      method: POST", "      method: PUSH", 7, "must be an HTTP method"),
        ("      path: /v1/documents", "      path: v1/documents", 8, "starting with '/'"),
        ("name: demo", "name: Demo Scenario", 1, "lowercase letters"),
        ("  - after: 60", "  - after: -1", 21, "must be at least 0"),
        ("    sunset: 2027-01-01T00:00:00Z\n", "", 17, "missing required field 'sunset'"),
        ("      - disable: boom", "      - disable: boom\n        enable: boom", 23, "exactly one"),
        (
            "  - request: {method: GET, path: /v1/whoami}\n    capture: {acct: body.account_id}\n",
            "  - {}\n",
            25,
            "a step needs one of request",
        ),
    ],
)
def test_schema_and_yaml_errors_name_the_line(old: str, new: str, line: int, message: str) -> None:
    assert old in GOOD
    error = error_of(GOOD.replace(old, new, 1))
    assert str(error).startswith(f"bad.yaml:{line}: "), str(error)
    assert message in str(error)
    assert error.line == line


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        # times
        ("    deprecation: 2026-01-01T00:00:00Z", "    deprecation: soon", 18, "not an RFC 3339"),
        ("    sunset: 2027-01-01", "    sunset: 2025-01-01", 19, "earlier than deprecation"),
        # rules
        ("      status: 503\n", "", 10, "missing required field 'status'"),
        ("      status: 503", "      status: 302", 11, "status of 400 or more"),
        ("{message: down}", "{message: down}\n      body: {}", 13, "either error or body"),
        ("      path: /v1/documents", "      path: /v1/{id", 8, "bad path segment"),
        (
            "      status: 503\n      error: {message: down}",
            "      rate_limit_burst: {seconds: 5}\n      status: 429",
            12,
            "takes no other field",
        ),
        (
            "      nth: 2\n    respond:\n      status: 503\n      error: {message: down}",
            "      body: {a: 1}\n    respond:\n      rate_limit_burst: {seconds: 5}",
            9,
            "method, path and key only",
        ),
        # names
        ("  - name: down", "  - name: boom", 14, "already used on line 5"),
        # webhook faults
        ("    fault: fail\n", "    fault: delay\n", 14, "needs delay_seconds"),
        ("    fault: fail\n", "    fault: timeout\n    status: 503\n", 16, "fail fault only"),
        ("    fault: fail\n", "    fault: fail\n    status: 200\n", 16, "400 to 599"),
        # timeline
        ("  - after: 60\n", "  - after: 60\n    at: 2026-01-01T00:00:00Z\n", 21, "exactly one"),
        ("      - disable: boom", "      - disable: nothing", 23, "no rule, webhook fault"),
        # steps
        ("    capture: {acct: body.account_id}", "    advance: 5", 25, "exactly one of"),
        (
            "  - request: {method: GET, path: /v1/whoami}\n",
            "  - advance: 5\n    expect: {status: 200}\n",
            26,
            "expect goes with a request step",
        ),
        ("${acct}", "${nobody}", 27, "'${nobody}' is not captured"),
        ("body.account_id", "bodies", 26, "must be 'status', 'body'"),
    ],
)
def test_checks_past_the_schema_name_the_line(old: str, new: str, line: int, message: str) -> None:
    assert old in GOOD
    error = error_of(GOOD.replace(old, new, 1))
    assert str(error).startswith(f"bad.yaml:{line}: "), str(error)
    assert message in str(error)


def test_setup_may_not_toggle() -> None:
    error = error_of("name: x\nsetup:\n  - legal_hold: {document: d}\n  - enable: boom\n")
    assert str(error).startswith("bad.yaml:4: setup[1].enable: 'enable' is a timeline action")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "scenario file is empty"),
        ("- name: x\n", 1, "the top level must be a mapping"),
        ("description: no name\n", 1, "missing required field 'name'"),
        ("name: x\nversion: 2\n", 2, "version: must be 1"),
    ],
)
def test_whole_file_errors(text: str, line: int, message: str) -> None:
    error = error_of(text)
    assert error.line == line
    assert message in str(error)


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read scenario file"):
        load_scenario(tmp_path / "missing.yaml")
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"name: x\ndescription: caf\xe9\n")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}:2: not valid UTF-8"


def test_yaml_12_booleans_keep_words_as_strings() -> None:
    scenario = load_scenario_text(
        "name: x\nrules:\n  - name: r\n    match: {headers: {X-Flag: on, X-Other: no}}\n"
        "    respond: {status: 500}\n",
        "x.yaml",
    )
    assert scenario.rules[0].match.headers == {"x-flag": "on", "x-other": "no"}


def test_unquoted_timestamps_are_read_as_text() -> None:
    scenario = load_scenario_text("name: x\nclock: {set: 2026-03-01T10:00:00+01:00}\n", "x")
    assert scenario.clock.set == 1772355600


def test_seeds_and_scenarios_are_told_apart_by_content() -> None:
    assert looks_like_seed("version: 1\naccounts:\n  - id: a\n")
    assert not looks_like_seed(GOOD)


def test_every_problem_past_the_schema_is_reported_in_the_files_order() -> None:
    error = error_of(
        """\
        name: many
        steps:
          - advance: 5
            expect: {status: 200}
        deprecations:
          - path: /v1/vaults
            deprecation: 2026-01-01T00:00:00Z
            sunset: 2025-01-01T00:00:00Z
        timeline:
          - after: 60
            do:
              - disable: nothing
              - enable: nobody
        """
    )
    assert [(p.line, p.message.split(":")[0]) for p in error.problems] == [
        (4, "steps[0].expect"),
        (8, "deprecations[0].sunset"),
        (12, "timeline[0].do[0].disable"),
        (13, "timeline[0].do[1].enable"),
    ]
    assert (error.line, error.message) == (error.problems[0].line, error.problems[0].message)
    assert str(error).splitlines() == [f"bad.yaml:{p.line}: {p.message}" for p in error.problems]


def test_the_checks_past_the_schema_go_on_around_the_parts_it_refuses() -> None:
    error = error_of(
        """\
        name: mixed
        rules:
          - name: down
            respond: {status: 9999}
          - name: up
            respond: {status: 302, error: {message: m}}
        timeline:
          - after: 60
            do:
              - disable: down
              - enable: nobody
        steps:
          - request: {method: GET, path: /v1/whoami, bogus: 1}
            capture: {acct: body.account_id}
          - request: {method: GET, path: '/v1/accounts/${acct}/${other}'}
        """
    )
    assert str(error).splitlines() == [
        "bad.yaml:4: rules[0].respond.status: must be at most 599",
        "bad.yaml:6: rules[1].respond.status: an error response needs a status of 400 or more",
        "bad.yaml:11: timeline[0].do[1].enable: no rule, webhook fault or deprecation named "
        "'nobody'",
        "bad.yaml:13: steps[0].request.bogus: unknown field 'bogus'; known: method, path, key, "
        "headers, query, body, form, content",
        "bad.yaml:15: steps[1].request.path: variable '${other}' is not captured by an earlier "
        "step",
    ]


def test_reading_past_the_problems_keeps_the_parts_that_passed() -> None:
    scenario, problems = read_scenario_text(
        textwrap.dedent(
            """\
            name: partial
            key: 5
            setup:
              - add_vault: {id: vault_qa_new, name: 5, region: us}
              - legal_hold: {document: doc_mock_draft}
            timeline:
              - at: 2026-01-15T10:00:00Z
                after: 60
                do: [{add_document: {id: doc_qa_new, vault_id: vault_qa_new, title: t}}]
            """
        ),
        "p.yaml",
    )
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (2, "key"),
        (4, "setup[0].add_vault.name"),
        (7, "timeline[0]"),
    ]
    assert [action.kind for action in scenario.setup] == ["legal_hold"]
    assert scenario.timeline == []
    assert scenario.skipped_ids == {"vault_qa_new", "doc_qa_new"}
    assert scenario.key_refused
    assert scenario.key == "sk_test_mock_full"


def test_a_file_that_is_not_a_mapping_is_one_problem_even_when_read_past_problems() -> None:
    with pytest.raises(ScenarioError, match=r"^x.yaml:1: the top level must be a mapping$"):
        read_scenario_text("- 1\n- 2\n", "x.yaml")


def test_yaml_aliases_are_refused_at_the_first_one() -> None:
    error = error_of(alias_bomb(6))
    assert str(error) == (
        "bad.yaml:9: YAML aliases are not allowed (found '*a'): write the value out in full"
    )
    error = error_of("name: x\ndescription: &d text\nrules:\n  - name: *d\n")
    assert str(error).startswith("bad.yaml:4: YAML aliases are not allowed (found '*d')")
