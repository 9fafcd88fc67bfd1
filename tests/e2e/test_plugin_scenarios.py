"""The plugin's scenario, journal and account helpers, used as a consumer suite would."""

from __future__ import annotations

import sys

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import pytest


@pytest.mark.mock_scenario("legal_hold")
def test_marker_loads_a_shipped_scenario(mock_server):
    with mock_server.client() as client:
        assert client.delete("/v1/documents/doc_qa_held_contract").status_code == 409
    assert [e["status"] for e in mock_server.requests(method="DELETE")] == [409]


def test_the_scenario_is_gone_in_the_next_test(mock_server):
    with mock_server.client() as client:
        assert client.get("/v1/documents/doc_qa_held_contract").status_code == 404
    assert [e["method"] for e in mock_server.requests()] == ["GET"]  # reset emptied it


def test_load_scenario_from_a_file(mock_server, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("name: mine\\nrules:\\n  - {name: r, respond: {status: 503}}\\n")
    mock_server.load_scenario(path)
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 503


def test_a_bad_file_names_its_line(mock_server, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\\nrules:\\n  - {name: r, respond: {statu: 503}}\\n")
    with pytest.raises(RuntimeError, match="bad.yaml:3: rules"):
        mock_server.load_scenario(path)


def test_deliveries(mock_server):
    from mockserver.testing.receiver import WebhookReceiver

    with WebhookReceiver() as receiver, mock_server.client() as client:
        body = {"url": receiver.url, "events": ["document.created"]}
        assert client.post("/v1/webhook_endpoints", json=body).status_code == 201
        doc = client.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
        mock_server.wait_for_deliveries()
        assert len(receiver.received) == 1
    (delivery,) = mock_server.deliveries(event_type="document.created")
    assert delivery["status"] == "succeeded"
    assert [a["status_code"] for a in delivery["attempts"]] == [200]


def test_new_account(mock_server):
    account = mock_server.new_account(region="eu")
    with mock_server.client(account["keys"]["full"]) as client:
        assert client.get("/v1/whoami").json()["account_id"] == account["id"]
        assert client.get("/v1/vaults").json()["data"] == []
"""


def test_scenario_helpers_in_a_consumer_suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=6)


BAD_SCENARIO = "name: bad\nrules:\n  - {name: r, respond: {statu: 503}}\nsteps:\n  - advance: -5\n"

BAD_CONSUMER = """
from pathlib import Path

import pytest

from mockserver.testing import ScenarioRefused

BAD = Path(__file__).with_name("bad.yaml")


def test_helper(mock_server):
    mock_server.load_scenario(BAD)


@pytest.mark.mock_scenario(str(BAD))
def test_marker(mock_server):
    pass


def test_a_refusal_can_be_caught(mock_server, tmp_path):
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ScenarioRefused) as refused:
        mock_server.load_scenario(missing)
    message = "cannot read scenario file: No such file or directory"
    assert str(refused.value) == f"{missing}:1: {message}"
    named = "^No scenario named 'legal_hole'. Did you mean 'legal_hold'[?] Available: "
    with pytest.raises(ScenarioRefused, match=named):
        mock_server.load_scenario("legal_hole")
"""


def follows(lines: list[str], expected: list[str]) -> bool:
    """Whether `expected` are consecutive lines of `lines`."""
    return any(lines[i : i + len(expected)] == expected for i in range(len(lines)))


def test_a_bad_scenario_fails_the_test_with_its_file_line_messages(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".yaml", bad=BAD_SCENARIO)
    pytester.makepyfile(test_consumer=BAD_CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    bad = pytester.path / "bad.yaml"
    problems = [
        f"{bad}:3: rules[0].respond.statu: unknown field 'statu' (did you mean 'status'?)",
        f"{bad}:5: steps[0].advance: must be at least 0",
    ]
    out = result.stdout.lines
    # the helper fails at the test's own line, with the mock's lines
    assert follows(
        out,
        [
            ">       mock_server.load_scenario(BAD)",
            f"E       mockserver.testing.server.ScenarioRefused: {problems[0]}",
            f"E       {problems[1]}",
            "",
            "test_consumer.py:11: ScenarioRefused",
        ],
    )
    # the marker errors the test at setup with the lines alone
    setup = next(i for i, line in enumerate(out) if "ERROR at setup of test_marker" in line)
    assert out[setup + 1 : setup + 3] == problems
    text = result.stdout.str()
    internals = ("plugin.py", "server.py", "session.py", "_call", "/_mock/scenarios", '{"error"')
    for internal in (*internals, "validation_error"):
        assert internal not in text
    assert "During handling" not in text


BOTH_KINDS = """\
name: both_kinds
setup:
  - legal_hold: {document: doc_nowhere}
rules:
  - {name: r, respond: {status: loud}}
"""

BOTH_CONSUMER = """
from pathlib import Path

import pytest

BOTH = Path(__file__).with_name("both.yaml")


@pytest.mark.mock_scenario(str(BOTH))
def test_marker(mock_server):
    pass
"""


def test_a_scenario_refused_shows_its_format_and_reference_problems_as_validate_does(
    pytester: pytest.Pytester,
) -> None:
    """The block a test fails with is `mockserver validate`'s: every problem, one a line."""
    pytester.makefile(".yaml", both=BOTH_KINDS)
    pytester.makepyfile(test_consumer=BOTH_CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    both = pytester.path / "both.yaml"
    validated = pytester.run(sys.executable, "-m", "mockserver", "validate", str(both))
    assert validated.ret == 2
    block = validated.errlines
    assert block == [
        f"{both}:3: setup[0].legal_hold.document: no document 'doc_nowhere'",
        f"{both}:5: rules[0].respond.status: must be a whole number",
    ]
    out = result.stdout.lines
    setup = next(i for i, line in enumerate(out) if "ERROR at setup of test_marker" in line)
    assert out[setup + 1 : setup + 3] == block
