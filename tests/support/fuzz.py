"""The schemathesis runs against the mock (the suite's bounded one and `make fuzz`'s long one):
how a run is started, what its report says, and the one list of documented exclusions.

A run uses the schemathesis command line, as a user would, on the served document less what
is pending (tests/support/openapi.py), with every check on but the excluded ones, the hooks
of tests/e2e/fuzz_hooks.py (time passes between calls; fresh idempotency keys in the
stateful phase), a fixed seed and one worker, so it replays. Its NDJSON event stream holds
every case with its phase, operation and answer; `FuzzReport.read` folds it into the figures
the tests assert and `make fuzz` writes down.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support.openapi import METHODS, without_pending

E2E = Path(__file__).parents[1] / "e2e"
CONFIG = E2E / "schemathesis.toml"
HOOKS = E2E / "fuzz_hooks.py"
SEED = 20261122


@dataclass(frozen=True)
class Exclusion:
    """A check schemathesis would fail on a rule of the product, with the statuses it is
    allowed instead; `operations` empty means the whole run (the check is off)."""

    check: str
    operations: tuple[str, ...]
    statuses: tuple[str, ...]
    reason: str


# The documented exclusions (docs/development/fuzzing.md): each is checked to still apply
# (tests/e2e/test_fuzz_exclusions.py) and to be what schemathesis.toml configures.
ACCEPTED = ("2xx", "401", "403", "404", "409", "422", "429")
EXCLUSIONS: tuple[Exclusion, ...] = (
    Exclusion(
        "unsupported_method",
        (),
        (),
        "An unknown method on a known path is 404 `not_found` like any unknown route, not "
        "405 with `Allow`.",
    ),
    Exclusion(
        "positive_data_acceptance",
        ("listDocuments", "listAuditEvents"),
        ACCEPTED,
        "A well-formed cursor the server did not issue is 422 `param: cursor`.",
    ),
    Exclusion(
        "positive_data_acceptance",
        ("createVault",),
        ACCEPTED,
        "A vault's region must be the routed one: 422 `param: region` otherwise.",
    ),
    Exclusion(
        "positive_data_acceptance",
        ("createWorkflow",),
        ACCEPTED,
        "A step condition made of allowed characters must still parse: 422 "
        "`steps[N].condition` otherwise.",
    ),
    Exclusion(
        "positive_data_acceptance",
        ("createAuditExport",),
        ACCEPTED,
        "An export period of real dates must not end before it starts: 422 `param: period`.",
    ),
    Exclusion(
        "positive_data_acceptance",
        ("oauthAuthorize",),
        ("302", "400"),
        "An unknown OAuth client is 400, never redirected to (RFC 6749 section 4.1.2.1).",
    ),
    Exclusion(
        "negative_data_rejection",
        ("oauthAuthorize",),
        ("302", "400"),
        "Every other problem of an authorization request, however malformed, is reported by a "
        "302 to the client's redirect URI (RFC 6749 section 4.1.2.1).",
    ),
)


# Operations a run answers but cannot make succeed, and why (the report lists them apart).
NO_SUCCESS: dict[str, str] = {
    "oauthToken": "A code comes only from an authorization's redirect (`Location`), which no "
    "link can hand to a form body; tests/e2e/test_oauth.py runs the whole flow.",
}


def excluded_checks() -> list[str]:
    return [e.check for e in EXCLUSIONS if not e.operations]


def command(schema: Path, base_url: str, report_dir: Path, *options: str) -> list[str]:
    """The schemathesis command line of a run of `schema` against `base_url`."""
    return [
        *(sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "--no-color"),
        *("run", str(schema), "--url", f"{base_url}/v1"),
        *("--checks", "all", "--exclude-checks", ",".join(excluded_checks())),
        *("--workers", "1"),
        *("--report", "json,ndjson"),
        *("--report-json-path", str(report_dir / "report.json")),
        *("--report-ndjson-path", str(report_dir / "events.ndjson")),
        *options,
    ]


@dataclass
class Run:
    summary: dict[str, Any]  # schemathesis's JSON report
    output: str  # the tail of its console output
    report: FuzzReport


def run_schemathesis(
    base_url: str, workdir: Path, *options: str, seed: int = SEED, timeout: float = 900
) -> Run:
    """Run schemathesis with every check but the excluded ones against a served mock (frozen
    clock, rate limits off); return its reports and output."""
    document = httpx.get(f"{base_url}/v1/openapi.json").json()
    schema = workdir / "openapi.json"
    schema.write_text(json.dumps(without_pending(document)))
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": str(HOOKS),
        "FUZZ_ADMIN_URL": base_url,
    }
    result = subprocess.run(
        [*command(schema, base_url, workdir, *options), "--seed", str(seed)],
        capture_output=True,
        text=True,
        cwd=workdir,
        timeout=timeout,
        env=env,
    )
    output = result.stdout[-30_000:] + result.stderr[-5_000:]
    summary_path = workdir / "report.json"
    assert summary_path.exists(), output
    summary: dict[str, Any] = json.loads(summary_path.read_text())
    assert summary["exit_code"] == result.returncode, output
    report = FuzzReport.read(workdir / "events.ndjson", operation_ids(document))
    return Run(summary, output, report)


def operation_ids(document: dict[str, Any]) -> dict[str, str]:
    """`METHOD /path` (as schemathesis labels a case) -> operationId, of every operation."""
    return {
        f"{method.upper()} {path}": item[method]["operationId"]
        for path, item in document["paths"].items()
        for method in item
        if method in METHODS
    }


def is_envelope(status: int, headers: dict[str, list[str]], body: bytes) -> bool:
    """Whether an error answer is the documented envelope with a `req_` request id."""
    content_type = (headers.get("content-type") or [""])[0].split(";")[0]
    if content_type != "application/json":
        return False
    try:
        error = json.loads(body)["error"]
        return (
            isinstance(error["type"], str)
            and isinstance(error["message"], str)
            and error["request_id"].startswith("req_")
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return False


@dataclass
class FuzzReport:
    """What a run did, by operation and phase, folded from its NDJSON events."""

    cases: int = 0
    answers: Counter[str] = field(default_factory=Counter)  # operationId -> answers
    succeeded: Counter[str] = field(default_factory=Counter)  # operationId -> 2xx/3xx
    # operationId -> 2xx/3xx answers to a stateful step that followed a link
    linked: Counter[str] = field(default_factory=Counter)
    phases: Counter[str] = field(default_factory=Counter)  # phase -> cases
    statuses: Counter[int] = field(default_factory=Counter)
    failed_checks: Counter[str] = field(default_factory=Counter)  # check -> failing cases
    server_errors: list[str] = field(default_factory=list)
    not_envelope: list[str] = field(default_factory=list)
    unknown_success: list[str] = field(default_factory=list)  # 2xx to an undocumented method
    operations: tuple[str, ...] = ()

    @classmethod
    def read(cls, path: Path, operations: dict[str, str]) -> FuzzReport:
        report = cls(operations=tuple(sorted(operations.values())))
        with path.open() as events:
            for line in events:
                if line.startswith('{"ScenarioFinished"'):
                    event = json.loads(line)["ScenarioFinished"]
                    report._add(event["phase"], event["recorder"], operations)
        return report

    def _add(self, phase: str, recorder: dict[str, Any], operations: dict[str, str]) -> None:
        checks = recorder.get("checks", {})
        for case_id, case in recorder.get("cases", {}).items():
            interaction = recorder.get("interactions", {}).get(case_id)
            response = interaction.get("response") if interaction else None
            for check in checks.get(case_id, []):
                if check["status"] == "failure":
                    self.failed_checks[check["name"]] += 1
            if response is None:
                continue
            value = case["value"]
            label = f"{value['method']} {value['path']}"
            # None: a method the path does not have (the coverage phase probes them)
            op = operations.get(label)
            self.cases += 1
            self.phases[phase] += 1
            self.answers[op or "other methods"] += 1
            status = response["status_code"]
            self.statuses[status] += 1
            where = f"{label} ({phase}, case {case_id}): {status}"
            if 200 <= status < 400:
                if op is None:
                    self.unknown_success.append(where)
                    continue
                self.succeeded[op] += 1
                if phase == "stateful" and case.get("is_transition_applied"):
                    self.linked[op] += 1
            elif status >= 500:
                self.server_errors.append(where)
            if status >= 400:
                content = response.get("content") or {}
                body = base64.b64decode(content.get("$base64", ""))
                if not is_envelope(status, response.get("headers", {}), body):
                    self.not_envelope.append(where)

    def merge(self, other: FuzzReport) -> None:
        """Add another run's figures (of the same document) to these."""
        self.cases += other.cases
        for mine, theirs in (
            (self.answers, other.answers),
            (self.succeeded, other.succeeded),
            (self.linked, other.linked),
            (self.phases, other.phases),
            (self.statuses, other.statuses),
            (self.failed_checks, other.failed_checks),
        ):
            mine.update(theirs)
        self.server_errors += other.server_errors
        self.not_envelope += other.not_envelope
        self.unknown_success += other.unknown_success

    def unreached(self) -> list[str]:
        """Operations that never answered, or never with a success where one is possible."""
        return [
            op
            for op in self.operations
            if not self.answers[op] or not (self.succeeded[op] or op in NO_SUCCESS)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "cases_by_phase": dict(sorted(self.phases.items())),
            "operations": {
                op: {
                    "answers": self.answers[op],
                    "succeeded": self.succeeded[op],
                    "succeeded_after_a_link": self.linked[op],
                }
                for op in self.operations
            },
            "operations_succeeded": sum(1 for op in self.operations if self.succeeded[op]),
            "operations_answered": sum(1 for op in self.operations if self.answers[op]),
            "operations_total": len(self.operations),
            "unreached": self.unreached(),
            "answered_without_success_by_design": {
                op: why for op, why in NO_SUCCESS.items() if not self.succeeded[op]
            },
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "failures_by_check": dict(sorted(self.failed_checks.items())),
            "other_methods": self.answers["other methods"],
            "server_errors": self.server_errors,
            "non_envelope_answers": self.not_envelope,
        }


def grouped_exclusions() -> dict[tuple[str, str], tuple[str, ...]]:
    """(operationId, check) -> the statuses the exclusions allow, as schemathesis.toml has them."""
    return {
        (op, exclusion.check): exclusion.statuses
        for exclusion in EXCLUSIONS
        for op in exclusion.operations
    }
