"""The fuzz runs' documented exclusions (tests/support/fuzz.py) still apply, and are the ones
schemathesis.toml configures and the fuzzing page lists.

Each exclusion has a probe: a request the served document calls valid (checked against the
document's own schemas) that the mock still refuses for the rule the exclusion names. When a
rule goes away or moves into the schema, its probe fails here and the exclusion must go.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import jsonschema
import pytest

from tests.support.api import assert_envelope
from tests.support.fuzz import CONFIG, EXCLUSIONS, Exclusion, grouped_exclusions
from tests.support.openapi import resolve

DOCS = Path(__file__).parents[2] / "docs" / "development" / "fuzzing.md"
CURSOR = "cur_" + "A" * 24  # well formed, never issued


@dataclass(frozen=True)
class Probe:
    method: str
    path: str
    params: dict[str, str | list[str]] | None = None
    body: dict[str, Any] | None = None


PROBES: dict[tuple[str, tuple[str, ...]], list[Probe]] = {
    ("unsupported_method", ()): [Probe("PUT", "/v1/vaults")],
    ("positive_data_acceptance", ("listDocuments", "listAuditEvents")): [
        Probe("GET", "/v1/documents", {"cursor": CURSOR}),
        Probe("GET", "/v1/audit_logs", {"cursor": CURSOR}),
    ],
    ("positive_data_acceptance", ("createVault",)): [
        Probe("POST", "/v1/vaults", body={"name": "Probe", "region": "eu"})
    ],
    ("positive_data_acceptance", ("createWorkflow",)): [
        Probe(
            "POST",
            "/v1/workflows",
            body={
                "document_id": "doc_mock_draft",
                "steps": [{"assignee": "ana@example.com", "condition": "metadata.amount =="}],
            },
        )
    ],
    ("positive_data_acceptance", ("createAuditExport",)): [
        Probe("POST", "/v1/audit_logs/export", body={"period": "2026-02-01/2026-01-01"})
    ],
    ("positive_data_acceptance", ("oauthAuthorize",)): [
        Probe("GET", "/v1/oauth/authorize", {"client_id": "nobody"})
    ],
    ("negative_data_rejection", ("oauthAuthorize",)): [
        Probe("GET", "/v1/oauth/authorize", {"client_id": "mock_client", "state": ["a", "b"]})
    ],
}


def key(exclusion: Exclusion) -> tuple[str, tuple[str, ...]]:
    return (exclusion.check, exclusion.operations)


def schema_valid(document: dict[str, Any], probe: Probe, op: dict[str, Any]) -> bool:
    """Whether the document calls the probe's query and body valid."""
    components = document["components"]
    for parameter in op.get("parameters", []):
        parameter = resolve(document, parameter)
        if parameter["in"] != "query" or parameter["name"] not in (probe.params or {}):
            continue
        value = (probe.params or {})[parameter["name"]]
        schema = {**parameter["schema"], "components": components}
        if isinstance(value, list) or not jsonschema.Draft202012Validator(schema).is_valid(value):
            return False
    if probe.body is not None:
        body = op["requestBody"]["content"]["application/json"]["schema"]
        schema = {**body, "components": components}
        return bool(jsonschema.Draft202012Validator(schema).is_valid(probe.body))
    return True


def test_every_exclusion_has_a_probe() -> None:
    assert sorted(map(key, EXCLUSIONS)) == sorted(PROBES)


@pytest.mark.parametrize("exclusion", EXCLUSIONS, ids=lambda e: f"{e.check}-{e.operations}")
def test_the_exclusion_still_applies(api: httpx.Client, exclusion: Exclusion) -> None:
    document = api.get("/v1/openapi.json").json()
    for probe in PROBES[key(exclusion)]:
        answer = api.request(probe.method, probe.path, params=probe.params, json=probe.body)
        if exclusion.check == "unsupported_method":
            assert probe.method.lower() not in document["paths"][probe.path.removeprefix("/v1")]
            assert_envelope(answer, 404, "not_found")
            continue
        op = next(
            item[probe.method.lower()]
            for path, item in document["paths"].items()
            if "/v1" + path == probe.path
        )
        assert op["operationId"] in exclusion.operations
        if exclusion.check == "negative_data_rejection":
            # schema-invalid (a parameter given twice), and still redirected
            assert not schema_valid(document, probe, op)
            assert answer.status_code == 302
            location = parse_qs(urlsplit(answer.headers["location"]).query)
            assert location["error"] == ["invalid_request"]
            continue
        assert schema_valid(document, probe, op), probe
        assert str(answer.status_code) in exclusion.statuses
        assert answer.status_code == (400 if op["operationId"] == "oauthAuthorize" else 422)
        assert answer.json()["error"]["message"]


def test_the_toml_configures_exactly_the_exclusions() -> None:
    config = tomllib.loads(CONFIG.read_text())
    configured: dict[tuple[str, str], tuple[str, ...]] = {}
    for entry in config["operations"]:
        ops = entry["include-operation-id"]
        for op in [ops] if isinstance(ops, str) else ops:
            for check, settings in entry["checks"].items():
                configured[(op, check)] = tuple(settings["expected-statuses"])
    assert configured == grouped_exclusions()
    assert "unsupported_method" not in config.get("checks", {})


def test_the_fuzzing_page_lists_every_exclusion() -> None:
    page = " ".join(DOCS.read_text().split())
    for exclusion in EXCLUSIONS:
        assert " ".join(exclusion.reason.split()) in page, exclusion.reason
        for op in exclusion.operations:
            assert f"`{op}`" in page
