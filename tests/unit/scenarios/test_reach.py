"""`reach.py`: which path patterns some route can match, and that its route table is the API's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mockserver.core.problems import Problem
from mockserver.scenarios.reach import API_ROUTES, _can_match
from mockserver.web.api import routes
from tests.support.build import ROOT


def test_the_route_table_is_the_apis() -> None:
    served = {(method, route.path) for route in routes() for method in route.methods or ()}
    served.discard(("HEAD", "/v1/whoami"))
    assert {(m, p) for m, p in served if m != "HEAD"} == set(API_ROUTES)


@pytest.mark.parametrize(
    ("pattern", "reachable"),
    [
        ("/v1/documents", True),
        ("/v1/documents/{id}", True),
        ("/v1/documents/doc_mock_draft", True),
        ("/v1/documnets", False),
        ("/v1/doc*", True),
        ("/v1/**", True),
        ("/**/advance", True),
        ("/v1/documents/*/advance", False),
        ("/us/v1/documents", False),  # rules match without the regional prefix
        ("/_mock/scenarios", False),
    ],
)
def test_some_route_can_match(pattern: str, reachable: bool) -> None:
    got = any(_can_match(pattern.split("/"), p.split("/")) for _, p in API_ROUTES)
    assert got is reachable


def test_a_warning_reads_as_file_line_warning() -> None:
    assert str(Problem("a.yaml", 3, "x", "warning")) == "a.yaml:3: warning: x"
    assert str(Problem("a.yaml", 3, "x", "error")) == "a.yaml:3: x"


def test_validate_warns_and_still_passes(tmp_path: Path) -> None:
    path = tmp_path / "qa.yaml"
    path.write_text(
        "name: qa\nrules:\n  - name: r\n    match: {path: /v1/documnets, key: sk_test_mock_fulll}\n"
        "    respond: {status: 500}\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "mockserver", "validate", str(path), "legal_hole"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 2  # legal_hole is no scenario
    assert f"{path}: ok (scenario)" in result.stdout
    lines = result.stderr.splitlines()
    assert f"{path}:4: warning: rules[0].match.key: no key 'sk_test_mock_fulll'" in lines[0]
    assert "(did you mean 'sk_test_mock_full'?)" in lines[0]
    assert f"{path}:4: warning: rules[0].match.path: no endpoint serves /v1/documnets" in lines[1]
    assert "legal_hole:1: no such file" in lines[2]
    assert "did you mean legal_hold?" in lines[2]
    alone = subprocess.run(
        [sys.executable, "-m", "mockserver", "validate", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert alone.returncode == 0, alone.stderr


def test_validate_warns_against_the_seed_given(tmp_path: Path) -> None:
    """With --seed, the keys are that seed's: the default seed's key is unknown there."""
    path = tmp_path / "qa.yaml"
    path.write_text(
        "name: qa\nrules:\n  - name: r\n    match: {key: sk_test_mock_full}\n"
        "    respond: {status: 500}\n"
    )
    seed = ROOT / "tests" / "e2e" / "data" / "tiny_seed.yaml"
    result = subprocess.run(
        [sys.executable, "-m", "mockserver", "validate", "--seed", str(seed), str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{path}:4: warning: rules[0].match.key: no key 'sk_test_mock_full' in the seed: "
        "this rule never matches"
    ]
