"""A `mock_scenario` file is found from the test file's folder, then the rootdir, wherever
pytest is started; a missing one names the paths tried; `--mock-strict-scenarios` covers the
scenarios of `mock_account` too. Run as a consumer's suite would (pytester, a subprocess)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

LOSSY = """\
name: lossy
rules:
  - name: first-whoami-fails
    match: {path: /v1/whoami, times: 1}
    respond: {status: 503}
"""

SUITE = """
import pytest


@pytest.mark.mock_scenario("lossy.yaml")
def test_beside_the_test_file(mock_server):
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 503


@pytest.mark.mock_scenario("shared/root.yaml")
def test_from_the_rootdir(mock_account):
    with mock_account.client() as client:
        assert client.get("/v1/vaults").status_code == 418


@pytest.mark.mock_scenario("nowhere.yaml")
def test_missing(mock_server):
    pass
"""

ROOT_SCENARIO = """\
name: root
rules:
  - name: teapot
    match: {path: /v1/vaults}
    respond: {status: 418}
"""


def test_marker_files_resolve_from_the_test_folder_then_the_rootdir(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\n")  # the rootdir: here
    retries = pytester.mkpydir("retries")
    (retries / "lossy.yaml").write_text(LOSSY)
    (retries / "test_retries.py").write_text(SUITE)
    (pytester.path / "shared").mkdir()
    (pytester.path / "shared" / "root.yaml").write_text(ROOT_SCENARIO)
    tried = f"tried {retries / 'nowhere.yaml'} and {pytester.path / 'nowhere.yaml'}"
    for where in (pytester.path, retries):  # from the parent folder, then from its own
        monkeypatch.chdir(where)
        result = pytester.runpytest_subprocess(
            str(retries), "-p", "no:cacheprovider", "-q", "--rootdir", str(pytester.path)
        )
        result.assert_outcomes(passed=2, errors=1)
        result.stdout.fnmatch_lines([f"*nowhere.yaml: no such scenario file ({tried})*"])


STRICT = """
import pytest


@pytest.mark.mock_scenario("unused.yaml")
def test_account_rule_never_fires(mock_account):
    with mock_account.client() as client:
        assert client.get("/v1/whoami").status_code == 200


@pytest.mark.mock_scenario("unused.yaml")
def test_account_rule_fires(mock_account):
    with mock_account.client() as client:
        assert client.get("/v1/vaults").status_code == 503
"""

UNUSED = """\
name: unused
rules:
  - name: vaults-down
    match: {path: /v1/vaults, key: sk_test_mock_full}
    respond: {status: 503}
"""


def test_strict_scenarios_cover_mock_account(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", unused=UNUSED)
    pytester.makepyfile(test_strict=STRICT)
    lenient = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    lenient.assert_outcomes(passed=2)
    strict = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-q", "--mock-strict-scenarios"
    )
    strict.assert_outcomes(passed=1, failed=1)
    strict.stdout.fnmatch_lines(["*Scenario rules that never fired: acct_*: unused/vaults-down.*"])


TYPO = """\
name: typo
rules:
  - name: never
    match: {path: /v1/documnets}
    respond: {status: 500}
"""

WARNED = """
import pytest


@pytest.mark.mock_scenario("typo.yaml")
def test_loaded_with_a_warning(mock_server):
    with mock_server.client() as client:
        assert client.get("/v1/documents").status_code == 200


@pytest.mark.mock_scenario("typo.yaml")
def test_in_an_account_too(mock_account):
    pass
"""


def test_a_rule_that_can_never_fire_is_in_the_warnings_summary(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", typo=TYPO)
    pytester.makepyfile(test_warned=WARNED)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=2, warnings=2)
    result.stdout.fnmatch_lines(
        ["*UserWarning: *typo.yaml:4: rules[[]0[]].match.path: no endpoint serves /v1/documnets*"]
    )
