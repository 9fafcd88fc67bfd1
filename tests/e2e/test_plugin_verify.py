"""The plugin's request assertions, mock journal report section and strict scenarios, used
as a consumer suite would: suites run by pytester."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

PASSING = """
import pytest


def test_assert_requested_over_the_socket(mock_server):
    with mock_server.client() as client:
        client.post("/v1/documents", json={"title": "Q1", "vault_id": "vault_mock_us"})
        client.get("/v1/documents/doc_mock_draft")
        client.get("/v1/documents/doc_mock_draft")
    assert mock_server.assert_requested("POST", "/v1/documents", body={"title": "Q1"}) == 1
    assert mock_server.assert_requested("GET", "/v1/documents/{id}", times=2) == 2
    mock_server.assert_requested("GET", "/v1/documents/*", at_least=1, at_most=2, status=200)
    mock_server.assert_requested(path="/v1/**", key="sk_test_mock_full", times=3)
    mock_server.assert_not_requested("DELETE", "/v1/documents/{id}")
    seqs = mock_server.assert_requested_in_order(
        [("POST", "/v1/documents"), {"method": "GET", "path": "/v1/documents/doc_mock_draft"}]
    )
    assert seqs == [1, 2]


def test_in_order_takes_the_earliest_match_after_each_step(mock_client):
    for path in ("/v1/whoami", "/v1/vaults", "/v1/whoami", "/v1/documents", "/v1/vaults"):
        mock_client.get(path)
    assert mock_client.assert_requested_in_order(
        [("GET", "/v1/vaults"), ("GET", "/v1/whoami"), ("GET", "/v1/vaults")]
    ) == [2, 3, 5]
    with pytest.raises(AssertionError, match="Step 3 of 3 in order"):
        mock_client.assert_requested_in_order(
            [("GET", "/v1/documents"), ("GET", "/v1/vaults"), ("GET", "/v1/documents")]
        )


def test_failures_say_what_was_expected(mock_client):
    mock_client.get("/v1/whoami")
    mock_client.get("/v1/whoami")
    with pytest.raises(AssertionError, match=r"exactly 1 request matching .*found 2"):
        mock_client.assert_requested("GET", "/v1/whoami", times=1)
    with pytest.raises(AssertionError, match=r"Expected no request matching .*found 2"):
        mock_client.assert_not_requested(path="/v1/whoami")
    with pytest.raises(RuntimeError, match="422"):
        mock_client.assert_requested("GET", "no-slash")
"""

FAILING = """
def test_creates_the_report(mock_client):
    mock_client.post("/v1/documents", json={"title": "Quarterly", "vault_id": "vault_mock_us"})
    mock_client.get("/v1/vaults/vault_mock_eu", headers={"Host": "us.localhost"})
    mock_client.assert_requested("POST", "/v1/documents", body={"title": "Annual report"})


def test_passes(mock_server):
    with mock_server.client() as client:
        client.get("/v1/whoami")


def test_fails_without_the_mock():
    assert 1 == 2
"""

STRICT = """
import pytest

SCENARIO = '''
name: strict
rules:
  - name: fires
    match: {path: /v1/whoami}
    respond: {status: 503}
  - name: never
    match: {path: /v1/vaults}
    respond: {status: 500}
'''


def test_an_unused_rule(mock_server, tmp_path):
    path = tmp_path / "strict.yaml"
    path.write_text(SCENARIO)
    mock_server.load_scenario(path)
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 503


def test_every_rule_used(mock_server, tmp_path):
    path = tmp_path / "strict.yaml"
    path.write_text(SCENARIO)
    mock_server.load_scenario(path)
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 503
        assert client.get("/v1/vaults").status_code == 500
"""


def test_assertions_pass_and_fail_as_documented(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=PASSING)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=3)


def test_a_failed_assertion_shows_matcher_count_and_near_miss(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=FAILING)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1, failed=2)
    output = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            '*AssertionError: Expected at least 1 request matching {"method": "POST", '
            '"path": "/v1/documents", "body": {"title": "Annual report"}}; found 0.',
            "*Near misses (closest first):",
            "*#1 POST /v1/documents -> 201",
            '*body/title: expected "Annual report", got "Quarterly"',
        ]
    )
    # The failed test that used the mock has its journal, with explain for the error.
    result.stdout.fnmatch_lines(
        [
            "*- mock journal -*",
            "#1 POST /v1/documents -> 201",
            "#2 GET /v1/vaults/vault_mock_eu -> 404",
            "    explain: not_found: No such vault: 'vault_mock_eu' "
            '{"resource": "vault_mock_eu", "region": "eu", "routed_region": "us"}',
        ]
    )
    assert output.count("mock journal") == 1  # not for the test that did not use the mock


def test_strict_scenarios_fail_a_test_with_an_unused_rule(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=STRICT)
    lenient = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    lenient.assert_outcomes(passed=2)
    strict = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-q", "--mock-strict-scenarios"
    )
    strict.assert_outcomes(passed=1, failed=1)
    strict.stdout.fnmatch_lines(
        [
            "*test_an_unused_rule*",
            "Scenario rules that never fired: strict/never.",
            "*- mock journal -*",
            "#1 GET /v1/whoami -> 503 (rule fires)",
            "    explain: scenario: Injected by scenario rule 'fires'. "
            '{"rule": "fires", "scenario": "strict"}',
        ]
    )
