"""schemathesis against the running mock: every response to generated and fuzzed requests
(examples, coverage, fuzzing and stateful phases, every check but one, see
tests/e2e/schemathesis.toml) must conform to the served OpenAPI document.

It runs the schemathesis command line, as a user would, against a real socket, on its own
server so the rest of the suite's state is untouched. The server's clock is frozen and rate
limits are off (the fuzzer sends far more than a sandbox key's 200 a minute); its state carries
over from case to case, as a real client's would, which the stateful phase needs. The seed is
fixed and nothing is cached between runs, so a run replays; each failure is printed with a curl
command that reproduces it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from mockserver.core.config import Settings
from mockserver.engine.calls import Answer, Call
from mockserver.engine.operations import resources
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.openapi import without_pending

CONFIG = Path(__file__).with_name("schemathesis.toml")
SEED = 20261122
MAX_EXAMPLES = 60  # per operation and phase: about a minute on two cores
MIN_CASES = 1500  # the run generates about 2,100; far fewer means operations went untested


@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[LiveServer]:
    server = LiveServer(create_app(Settings(clock_mode="frozen", rate_limit=False))).start()
    yield server
    server.stop()


def run_schemathesis(base_url: str, workdir: Path, *options: str) -> tuple[dict[str, Any], str]:
    """Run the schemathesis command line, with every check, on the served document less what
    is pending; return its JSON report and its output."""
    document = httpx.get(f"{base_url}/v1/openapi.json").json()
    schema = workdir / "openapi.json"
    schema.write_text(json.dumps(without_pending(document)))
    report = workdir / "report.json"
    result = subprocess.run(
        [
            *(sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "--no-color"),
            *("run", str(schema), "--url", f"{base_url}/v1"),
            *(
                "--checks",
                "all",
                "--exclude-checks",
                "unsupported_method,ensure_resource_availability",
            ),
            *("--seed", str(SEED), "--workers", "1"),
            *("--report", "json", "--report-json-path", str(report)),
            *options,
        ],
        capture_output=True,
        text=True,
        cwd=workdir,
        timeout=600,
    )
    output = result.stdout[-30_000:] + result.stderr[-5_000:]
    assert report.exists(), output
    summary: dict[str, Any] = json.loads(report.read_text())
    assert summary["exit_code"] == result.returncode, output
    return summary, output


def test_schemathesis_finds_no_failure(fuzz_server: LiveServer, tmp_path: Path) -> None:
    summary, output = run_schemathesis(
        fuzz_server.base_url, tmp_path, "--max-examples", str(MAX_EXAMPLES)
    )
    assert summary["exit_code"] == 0, output
    assert summary["failures"] == [], output
    assert summary["errors"] == [], output
    phases = {name: phase["status"] for name, phase in summary["phases"].items()}
    assert phases == dict.fromkeys(("examples", "coverage", "fuzzing", "stateful"), "success")
    operations = summary["operations"]
    assert operations["tested"] == operations["selected"] == operations["total"] >= 18
    assert summary["test_cases"]["generated"] >= MIN_CASES, summary["test_cases"]


def test_schemathesis_catches_a_response_that_breaks_the_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run above can fail: a whoami that loses a field is caught as a schema violation."""

    def broken_whoami(call: Call) -> Answer:
        principal, _ = call.caller()
        return Answer(orjson.dumps({"account_id": principal.account_id, "region": "us"}))

    monkeypatch.setattr(resources, "whoami", broken_whoami)
    server = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    try:
        summary, output = run_schemathesis(
            server.base_url,
            tmp_path,
            *("--include-operation-id", "whoami", "--phases", "examples,coverage,fuzzing"),
            *("--max-examples", "5"),
        )
    finally:
        server.stop()
    assert summary["exit_code"] == 1, output
    assert summary["errors"] == [], output
    (failure,) = summary["failures"]
    assert failure["title"] == "Response violates schema", output
    assert failure["operations"] == ["GET /whoami"]
