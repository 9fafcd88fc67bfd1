"""schemathesis against the running mock: every response to generated and fuzzed requests
(examples, coverage, fuzzing and stateful phases, every check but the documented exclusions of
tests/support/fuzz.py) must conform to the served OpenAPI document, and the run must reach
every operation.

It runs the schemathesis command line, as a user would, against a real socket, on its own
server so the rest of the suite's state is untouched. The server's clock is frozen (the hooks
move it two seconds a call) and rate limits are off (the fuzzer sends far more than a sandbox
key's 200 a minute); its state carries over from case to case, as a real client's would, which
the stateful phase needs: it follows the document's links from creates to reads, decisions,
deletes and downloads. The seed is fixed and nothing is cached between runs, so a run replays;
each failure is printed with a curl command that reproduces it. `make fuzz` runs the same for
longer (tests/e2e/fuzz.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.api import meta
from mockserver.web.api.call import answer, call_of
from mockserver.web.app import create_app
from tests.support.fuzz import run_schemathesis

MAX_EXAMPLES = 60  # per operation and phase (the stateful phase's budget is in the toml)
MIN_CASES = 2500  # the run answers about 4,000; far fewer means operations went untested
# What the stateful phase must do through the links: create, then read, decide, delete and
# download what it created.
LINKED = (
    "getVault",
    "createDocument",
    "getDocument",
    "deleteDocument",
    "createWorkflow",
    "getWorkflow",
    "advanceWorkflow",
    "getAuditExport",
    "downloadAuditExport",
    "deleteWebhookEndpoint",
    "listDocuments",
    "listAuditEvents",
)


@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[LiveServer]:
    server = LiveServer(create_app(Settings(clock_mode="frozen", rate_limit=False))).start()
    yield server
    server.stop()


def test_schemathesis_reaches_everything_and_finds_no_failure(
    fuzz_server: LiveServer, tmp_path: Path
) -> None:
    run = run_schemathesis(fuzz_server.base_url, tmp_path, "--max-examples", str(MAX_EXAMPLES))
    summary, output, report = run.summary, run.output, run.report
    assert summary["exit_code"] == 0, output
    assert summary["failures"] == [], output
    assert summary["errors"] == [], output
    phases = {name: phase["status"] for name, phase in summary["phases"].items()}
    assert phases == dict.fromkeys(("examples", "coverage", "fuzzing", "stateful"), "success")
    operations = summary["operations"]
    assert operations["tested"] == operations["selected"] == operations["total"] >= 21
    assert report.failed_checks == {}, output
    assert report.server_errors == [], output
    assert report.not_envelope == [], output
    assert report.unknown_success == [], output
    assert report.unreached() == [], report.as_dict()["operations"]
    assert [op for op in LINKED if not report.linked[op]] == [], report.as_dict()["operations"]
    assert report.cases >= MIN_CASES, report.as_dict()


def test_schemathesis_catches_a_response_that_breaks_the_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run above can fail: a whoami that loses a field is caught as a schema violation."""

    async def broken_whoami(request: Request) -> Response:
        principal = (await call_of(request, "")).principal
        return answer(orjson.dumps({"account_id": principal.account_id, "region": "us"}))

    monkeypatch.setattr(meta, "whoami", broken_whoami)
    server = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    try:
        run = run_schemathesis(
            server.base_url,
            tmp_path,
            *("--include-operation-id", "whoami", "--phases", "examples,coverage,fuzzing"),
            *("--max-examples", "5"),
        )
    finally:
        server.stop()
    summary, output = run.summary, run.output
    assert summary["exit_code"] == 1, output
    assert summary["errors"] == [], output
    (failure,) = summary["failures"]
    assert failure["title"] == "Response violates schema", output
    assert failure["operations"] == ["GET /whoami"]
