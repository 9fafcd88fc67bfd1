"""The scenario commands as a user types them: validate, replay, run --scenario."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
import pytest

from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.core.shipped import data_dir, default_seed_path
from mockserver.scenarios.loader import load_scenario_text
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.replay import Runner
from mockserver.web.app import create_app
from tests.support.cli import MOCKSERVER, free_port
from tests.support.scenarios import alias_bomb

FAILING = """\
name: failing
steps:
  - request: {method: POST, path: /v1/documents, body: {title: t, vault_id: vault_mock_us}}
    expect: {status: 201, headers: {X-Request-Id: "*"}}
    capture: {doc: body.id, status: status, rid: headers.x-request-id}
  - name: wrong status
    request: {method: DELETE, path: "/v1/documents/${doc}"}
    expect: {status: 409}
  - name: wrong body
    request: {method: GET, path: /v1/whoami}
    expect: {body: {account_id: acct_other}}
  - name: missing capture
    request: {method: GET, path: /v1/whoami}
    capture: {x: body.nothing.here}
  - request: {method: GET, path: "/v1/documents/${x}"}
  - name: no key
    request: {method: GET, path: /v1/whoami, key: null}
    expect: {status: 401, headers: {WWW-Authenticate: null, Content-Type: application/json}}
  - name: a wrong header
    request: {method: GET, path: /v1/whoami}
    expect: {headers: {Content-Type: text/plain}}
  - set_clock: 2026-02-01T00:00:00Z
  - name: whole-value variables keep their type
    request:
      method: POST
      path: /v1/documents
      body: {title: "status ${status}", vault_id: vault_mock_us, metadata: {code: "${status}"}}
    expect: {status: 201, body: {title: status 201, created_at: "2026-02-01T00:00:00Z"}}
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_replay_reports_every_step_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(write(tmp_path, FAILING))]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ok     1  POST /v1/documents -> 201"
    assert lines[1].startswith("FAIL   2  wrong status: DELETE /v1/documents/doc_")
    assert lines[1].endswith("-> 200: expected status 409")
    assert lines[2] == (
        "FAIL   3  wrong body: GET /v1/whoami -> 200: "
        'body.account_id is "acct_mock_us", expected "acct_other"'
    )
    assert lines[3] == (
        "FAIL   4  missing capture: GET /v1/whoami -> 200: "
        "cannot capture x: the response has no body.nothing.here"
    )
    assert lines[4] == (
        "FAIL   5  request: variable '${x}' was not captured (an earlier step failed)"
    )
    assert lines[5] == "ok     6  no key: GET /v1/whoami -> 401"
    assert lines[6] == (
        "FAIL   7  a wrong header: GET /v1/whoami -> 200: "
        "header Content-Type is 'application/json', expected 'text/plain'"
    )
    assert lines[7] == "ok     8  set clock -> 2026-02-01T00:00:00Z"
    assert lines[8] == "ok     9  whole-value variables keep their type: POST /v1/documents -> 201"
    assert lines[-1] == "4 passed, 5 failed"


BROKEN = """\
name: broken
rules:
  - name: reset-once
    match: {path: /v1/whoami, times: 1}
    respond: {fault: reset}
  - name: lost-create
    match: {method: POST, path: /v1/documents}
    respond: {fault: drop_after_commit}
steps:
  - name: the first whoami breaks
    request: {method: GET, path: /v1/whoami}
    expect: {transport_error: true}
  - name: the next one answers
    request: {method: GET, path: /v1/whoami}
    expect: {status: 200, transport_error: false}
  - name: a lost answer not expected
    request: {method: POST, path: /v1/documents, body: {title: t, vault_id: vault_mock_us}}
    expect: {status: 201}
  - name: an answer where a break was expected
    request: {method: GET, path: /v1/whoami}
    expect: {transport_error: true}
"""


def test_replay_steps_expect_a_broken_connection_or_report_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(write(tmp_path, BROKEN))]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "ok     1  the first whoami breaks: GET /v1/whoami -> connection broken",
        "ok     2  the next one answers: GET /v1/whoami -> 200",
        "FAIL   3  a lost answer not expected: POST /v1/documents -> connection broken: the "
        "connection broke (RemoteProtocolError: Server disconnected without sending a "
        "response.)",
        "FAIL   4  an answer where a break was expected: GET /v1/whoami -> 200: expected the "
        "connection to break, but it answered",
        "2 passed, 2 failed",
    ]


def test_replay_of_a_bad_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "name: x\nsteps:\n  - advance: -5\n")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"{path}:3: steps[0].advance: must be at least 0")


def test_validate_tells_seeds_from_scenarios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, "name: good\n", "good.yaml")
    bad = write(tmp_path, "name: bad\nrules:\n  - name: r\n    respond: {}\n", "bad.yaml")
    assert main(["validate", str(default_seed_path()), str(good), str(bad)]) == 2
    captured = capsys.readouterr()
    assert f"{good}: ok (scenario)" in captured.out
    assert "ok (seed)" in captured.out
    assert captured.err.startswith(f"{bad}:4: rules[0].respond: respond needs at least one")


def test_run_with_a_bad_scenario_exits_2_before_serving(tmp_path: Path) -> None:
    bad = write(tmp_path, "name: x\nsetup:\n  - revoke_key: {key: sk_test_nobody}\n")
    result = subprocess.run(
        [*MOCKSERVER, "run", "--port", str(free_port()), "--scenario", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{bad}:3: setup[0].revoke_key.key: unknown key 'sk_test_nobody'" in result.stderr
    assert "listening" not in result.stdout


def test_yaml_aliases_are_refused_by_validate_and_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bomb = write(tmp_path, alias_bomb(6), "bomb.yaml")
    seed = default_seed_path().read_text().replace("accounts:", "x: &x 1\ny: *x\naccounts:", 1)
    seed_path = write(tmp_path, seed, "seed.yaml")
    line = seed[: seed.index("*x")].count("\n") + 1
    assert main(["validate", str(bomb), str(seed_path)]) == 2
    err = capsys.readouterr().err
    assert f"{bomb}:9: YAML aliases are not allowed (found '*a')" in err
    assert f"{seed_path}:{line}: YAML aliases are not allowed (found '*x')" in err
    result = subprocess.run(
        [*MOCKSERVER, "run", "--port", str(free_port()), "--scenario", str(bomb)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{bomb}:9: YAML aliases are not allowed" in result.stderr
    assert "listening" not in result.stdout


def test_scenarios_load_at_start_by_path_or_name(tmp_path: Path) -> None:
    own = write(tmp_path, "name: own\nsetup:\n  - revoke_key: {key: sk_test_mock_readonly}\n")
    settings = Settings(clock_mode="frozen", scenario_paths=(Path("legal_hold"), own))
    app = create_app(settings)
    with inprocess_client(app, headers={"Authorization": "Bearer sk_test_mock_full"}) as client:
        names = [s["name"] for s in client.get("/_mock/scenarios").json()["data"]]
        assert names == ["legal_hold", "own"]
        assert client.delete("/v1/documents/doc_qa_held_contract").status_code == 409
        readonly = {"Authorization": "Bearer sk_test_mock_readonly"}
        assert client.get("/v1/whoami", headers=readonly).status_code == 401


def test_wait_for_deliveries_advances_the_clock_until_enough_arrive() -> None:
    """The deliveries journal arrives with webhooks; here a stand-in server answers it."""
    scenario = load_scenario_text(
        "name: w\nsteps:\n"
        "  - wait_for_deliveries: {endpoint: whk_a, count: 2, within: 300}\n"
        "  - wait_for_deliveries: {count: 5, within: 60}\n",
        "w.yaml",
    )
    clock = {"now": 0}
    seen: list[dict[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/_mock/webhooks/wait":
            return httpx.Response(200, json={})
        if request.url.path == "/_mock/clock/advance":
            clock["now"] += int(request.read().decode().split(":")[1].rstrip("}"))
            return httpx.Response(200, json={"now": str(clock["now"])})
        seen.append(dict(request.url.params))
        arrived = [{}] * (clock["now"] // 100)  # one delivery per 100 s
        return httpx.Response(200, json={"data": arrived})

    lines: list[str] = []
    with httpx.Client(transport=httpx.MockTransport(handler), base_url="http://m") as client:
        assert not Runner(client, scenario).run(lines.append)
    assert lines == [
        "ok     1  wait for 2 deliveries endpoint_id=whk_a -> 2 after 240 s",
        "FAIL   2  wait for 5 deliveries: 3 after 60 s",
        "1 passed, 1 failed",
    ]
    assert seen[0] == {"endpoint_id": "whk_a"}


def test_wait_for_deliveries_that_never_come_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "name: w\nsteps:\n  - wait_for_deliveries: {count: 1, within: 120}\n")
    assert main(["replay", str(path)]) == 1
    assert "FAIL   1  wait for 1 deliveries: 0 after 120 s" in capsys.readouterr().out


def test_validate_and_replay_take_a_shipped_scenario_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shipped = data_dir("scenarios") / "legal_hold.yaml"
    assert main(["validate", "legal_hold"]) == 0
    assert capsys.readouterr().out == f"{shipped}: ok (scenario)\n"
    assert main(["replay", "legal_hold"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "7 passed, 0 failed"


def test_a_name_that_is_neither_a_file_nor_shipped_lists_the_shipped_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", "legal_hole"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("legal_hole:1: no such file, and no shipped scenario of that name")
    assert "legal_hold, rate_limit_burst" in err
    assert main(["validate", "legal_hole"]) == 2
    assert capsys.readouterr().err == err


def test_validate_applies_the_checks_of_loading_against_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        "name: nowhere\nsetup:\n  - legal_hold: {document: doc_mock_draft}\n"
        "  - add_document: {vault_id: vault_nowhere, title: t}\n",
    )
    assert main(["validate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"{path}:4: setup[1].add_document.vault_id: "
        "no vault 'vault_nowhere' for key sk_test_mock_full\n"
    )


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        (  # the schema's: two unknown fields of one mapping, and a bad value further down
            "name: two\nrules:\n  - name: r\n    match: {nht: 1, mehtod: GET}\n"
            "    respond: {status: 999}\n",
            [
                "4: rules[0].match.nht: unknown field 'nht' (did you mean 'nth'?)",
                "4: rules[0].match.mehtod: unknown field 'mehtod' (did you mean 'method'?)",
                "5: rules[0].respond.status: must be at most 599",
            ],
        ),
        (  # the checks past the schema, in two different items
            "name: two\nrules:\n  - name: r\n    respond: {status: 302, error: {message: m}}\n"
            "steps:\n  - request: {method: GET, path: '/v1/documents/${nobody}'}\n",
            [
                "4: rules[0].respond.status: an error response needs a status of 400 or more",
                "6: steps[0].request.path: variable '${nobody}' is not captured by an earlier step",
            ],
        ),
        (  # the checks of loading, against the seed
            "name: two\nsetup:\n  - revoke_key: {key: sk_test_nobody}\n"
            "  - add_document: {vault_id: vault_nowhere, title: t}\n",
            [
                "3: setup[0].revoke_key.key: unknown key 'sk_test_nobody'",
                "4: setup[1].add_document.vault_id: no vault 'vault_nowhere' for key "
                "sk_test_mock_full",
            ],
        ),
    ],
)
def test_validate_reports_every_problem_of_a_file_one_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problems: list[str]
) -> None:
    path = write(tmp_path, text)
    good = write(tmp_path, "name: good\n", "good.yaml")
    assert main(["validate", str(path), str(good)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"{path}:{problem}" for problem in problems]
    assert captured.out == f"{good}: ok (scenario)\n"


EVERY_KIND = """\
name: every_kind
setup:
  - legal_hold: {document: doc_nowhere}
  - add_document: {vault_id: vault_nowhere, title: t}
  - revoke_key: {key: 5}
rules:
  - name: r
    match: {nht: 2}
    respond: {status: 500}
  - name: s
    respond: {status: 302, error: {message: m}}
timeline:
  - after: 60
    do:
      - disable: nobody
steps:
  - request: {method: GET, path: '/v1/documents/${nobody}'}
  - advance: -5
"""


def test_validate_reports_format_and_reference_problems_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, EVERY_KIND)
    assert main(["validate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"{path}:3: setup[0].legal_hold.document: no document 'doc_nowhere'",
        f"{path}:4: setup[1].add_document.vault_id: no vault 'vault_nowhere' for key "
        "sk_test_mock_full",
        f"{path}:5: setup[2].revoke_key.key: must be a string",
        f"{path}:8: rules[0].match.nht: unknown field 'nht' (did you mean 'nth'?)",
        f"{path}:11: rules[1].respond.status: an error response needs a status of 400 or more",
        f"{path}:15: timeline[0].do[0].disable: no rule, webhook fault or deprecation named "
        "'nobody'",
        f"{path}:17: steps[0].request.path: variable '${{nobody}}' is not captured by an "
        "earlier step",
        f"{path}:18: steps[1].advance: must be at least 0",
    ]


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        (  # a vault the schema refused is not reported missing by what uses it
            "name: v\nsetup:\n  - add_vault: {id: vault_qa_new, name: 5, region: us}\n"
            "  - add_document: {id: doc_qa_new, vault_id: vault_qa_new, title: t}\n"
            "  - legal_hold: {document: doc_qa_new}\n",
            ["3: setup[0].add_vault.name: must be a string"],
        ),
        (  # a document refused against the seed is not reported again by its workflow
            "name: d\nsetup:\n  - add_document: {id: doc_qa_new, vault_id: vault_no, title: t}\n"
            "  - add_workflow: {document_id: doc_qa_new, steps: [{assignee: a@example.com}]}\n",
            ["3: setup[0].add_document.vault_id: no vault 'vault_no' for key sk_test_mock_full"],
        ),
        (  # a refused default key: the actions that use it are not checked, the others are
            "name: k\nkey: 5\nsetup:\n  - add_document: {vault_id: vault_no, title: t}\n"
            "  - legal_hold: {document: doc_nowhere}\n",
            [
                "2: key: must be a string",
                "5: setup[1].legal_hold.document: no document 'doc_nowhere'",
            ],
        ),
        (  # a refused list: only its own problem; the timeline is still checked
            "name: l\nsetup: 5\ntimeline:\n  - after: 1\n"
            "    do: [{legal_hold: {document: doc_nowhere}}]\n",
            [
                "2: setup: must be a list",
                "5: timeline[0].do[0].legal_hold.document: no document 'doc_nowhere'",
            ],
        ),
        (  # a refused rule or step still names what refers to it
            "name: r\nrules:\n  - {name: r, respond: {status: 9999}}\n"
            "timeline:\n  - {after: 1, do: [{disable: r}]}\n"
            "steps:\n  - {request: {method: GET, path: /v1/whoami, bogus: 1}, capture: {x: body}}\n"
            "  - request: {method: GET, path: '/v1/documents/${x}'}\n",
            [
                "3: rules[0].respond.status: must be at most 599",
                "7: steps[0].request.bogus: unknown field 'bogus'; known: method, path, key, "
                "headers, query, body, form, content",
            ],
        ),
    ],
)
def test_validate_reports_nothing_missing_that_a_refused_part_would_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problems: list[str]
) -> None:
    path = write(tmp_path, text)
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{path}:{problem}" for problem in problems]


def test_validate_checks_against_the_seed_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = write(
        tmp_path,
        default_seed_path().read_text().replace("vault_mock_eu", "vault_team_eu"),
        "t.yaml",
    )
    scenario = write(
        tmp_path, "name: team\nsetup:\n  - add_document: {vault_id: vault_team_eu, title: t}\n"
    )
    assert main(["validate", str(scenario)]) == 2
    assert "no vault 'vault_team_eu'" in capsys.readouterr().err
    assert main(["validate", "--seed", str(seed), str(scenario)]) == 0
    assert capsys.readouterr().out == f"{scenario}: ok (scenario)\n"
    old = write(
        tmp_path,
        "name: old\nsetup:\n  - legal_hold: {document: doc_mock_draft}\n"
        "  - add_document: {vault_id: vault_mock_eu, title: t}\n",
        "old.yaml",
    )
    assert main(["validate", str(old)]) == 0
    assert main(["validate", "--seed", str(seed), str(old)]) == 2
    assert capsys.readouterr().err == (
        f"{old}:4: setup[1].add_document.vault_id: no vault 'vault_mock_eu' for key "
        "sk_test_mock_full\n"
    )


def test_validate_with_a_bad_seed_reports_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = write(tmp_path, "version: 1\naccounts: 7\n", "seed.yaml")
    assert main(["validate", "--seed", str(seed), "legal_hold"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"{seed}:2: ")
    assert captured.out == ""
