"""The OpenAPI 3.1 document: served without a credential, printed by the CLI, valid, in step
with the routes and the handlers' rules, and describing what the mock actually answers."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from typing import Any

import httpx
import jsonschema
import pytest
from openapi_spec_validator import validate

from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.core.shipped import default_seed_path
from mockserver.domain.models import DOCUMENT_STATUSES, REGIONS, SCOPES, Limits
from mockserver.domain.validation import EMAIL_PATTERN
from mockserver.seeds.loader import load_seed
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import READONLY, auth
from tests.support.oauth import (
    CHALLENGE,
    CLIENT_ID,
    VERIFIER,
    authorize,
    bearer,
    exchange,
    redirected,
)
from tests.support.openapi import (
    PENDING_REQUEST_HEADERS,
    PENDING_RESPONSE_HEADERS,
    PENDING_ROUTES,
    assert_conforms,
    documented_routes,
    resolve,
    served_routes,
)


@pytest.fixture(scope="module")
def document(app: Any) -> dict[str, Any]:
    with inprocess_client(app) as client:
        body: dict[str, Any] = client.get("/v1/openapi.json").json()
    return body


def test_served_on_every_base_url_without_a_credential(both: httpx.Client) -> None:
    both.headers.pop("Authorization")
    bodies = set()
    for base in ("/v1", "/us/v1", "/eu/v1"):
        response = both.get(f"{base}/openapi.json")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        assert response.headers["x-request-id"].startswith("req_")
        bodies.add(response.content)
    (body,) = bodies
    assert body.startswith(b'{\n  "components": {')  # sorted keys, two-space indent
    assert body.endswith(b"}\n")


def test_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1.")
    validate(document)


def test_cli_prints_the_served_document_byte_for_byte(api: httpx.Client) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mockserver", "openapi"],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert result.stdout == api.get("/v1/openapi.json").content


def test_cli_describes_the_limits_of_the_seed_it_is_given(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = tmp_path / "seed.yaml"
    text = default_seed_path().read_text()
    seed.write_text(re.sub(r"(?m)^limits:\n(  .*\n)*", "", text) + "limits:\n  title_max: 600\n")
    assert main(["openapi", "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    assert '"maxLength": 600' in out
    assert main(["openapi", "--seed", str(tmp_path / "missing.yaml")]) == 2


def test_every_route_is_documented_and_every_operation_served(
    app: Any, document: dict[str, Any]
) -> None:
    documented = documented_routes(document)
    served = served_routes(app)
    assert served - documented == set(), "routes missing from the document"
    assert documented - served == PENDING_ROUTES, "documented operations the app lacks"
    # A merge that brings a pending route in must delete it from PENDING_ROUTES.
    assert not PENDING_ROUTES & served


def test_pending_headers_are_still_pending(api: httpx.Client) -> None:
    """Delete entries of PENDING_*_HEADERS once the branch that serves them is merged."""
    response = api.post(
        "/v1/documents",
        json={"title": "t", "vault_id": "vault_mock_us"},
        headers={"Idempotency-Key": "k1"},
    )
    again = api.post(
        "/v1/documents",
        json={"title": "t", "vault_id": "vault_mock_us"},
        headers={"Idempotency-Key": "k1"},
    )
    if "Idempotency-Key" in PENDING_REQUEST_HEADERS:
        assert again.json()["id"] != response.json()["id"]
    for name in PENDING_RESPONSE_HEADERS - {"Retry-After"}:
        assert name.lower() not in response.headers


def test_limits_and_enums_come_from_the_code(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    create = schemas["DocumentCreate"]["properties"]
    assert create["title"]["maxLength"] == Limits().title_max
    assert create["metadata"]["maxProperties"] == Limits().metadata_keys
    assert schemas["Document"]["properties"]["status"]["enum"] == list(DOCUMENT_STATUSES)
    assert schemas["VaultCreate"]["properties"]["region"]["enum"] == list(REGIONS)
    assert schemas["VaultCreate"]["properties"]["members"]["items"]["pattern"] == (
        f"^{EMAIL_PATTERN}$"
    )
    flow = document["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert sorted(flow["scopes"]) == sorted(SCOPES)


def test_served_document_follows_the_seeds_limits() -> None:
    seed = load_seed(default_seed_path())
    seed = dataclasses.replace(seed, limits=dataclasses.replace(seed.limits, title_max=42))
    app = create_app(Settings(clock_mode="frozen"), seed=seed)
    with inprocess_client(app, headers=auth()) as client:
        doc = client.get("/v1/openapi.json").json()
        title = doc["components"]["schemas"]["DocumentCreate"]["properties"]["title"]
        assert title["maxLength"] == 42
        body = {"title": "x" * 43, "vault_id": "vault_mock_us"}
        assert_envelope(client.post("/v1/documents", json=body), 422, "validation_error")


def test_every_operation_documents_its_errors(document: dict[str, Any]) -> None:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            statuses = set(operation["responses"])
            where = f"{method.upper()} {path}"
            assert {"404", "500"} <= statuses, where
            requirement = operation["security"][0] if operation["security"] else {}
            if "apiKey" in requirement:  # a credentialed operation
                assert {"401", "429"} <= statuses, where
                if requirement["apiKey"]:  # that needs a scope
                    assert "403" in statuses, where
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                assert {"400", "413", "422"} <= statuses, where
            for status, response in operation["responses"].items():
                response = resolve(document, response)
                assert "X-Request-Id" in response["headers"], f"{where} {status}"
                if status.startswith(("4", "5")):
                    schema = resolve(document, response["content"]["application/json"]["schema"])
                    error_type = schema["properties"]["error"]["properties"]["type"]["const"]
                    assert error_type, f"{where} {status}"


ANSWERS = [
    ("GET", "/v1/whoami", None, None),
    ("GET", "/eu/v1/whoami", None, None),
    ("GET", "/v1/vaults", None, None),
    ("POST", "/v1/vaults", {"name": "V", "region": "us", "members": ["a@b.co"]}, None),
    ("POST", "/v1/vaults", {"name": "V", "region": "eu"}, None),
    ("GET", "/v1/vaults/vault_mock_us", None, None),
    ("GET", "/v1/vaults/vault_nope", None, None),
    ("GET", "/v1/documents?limit=3&status=draft", None, None),
    ("GET", "/v1/documents?limit=0", None, None),
    ("POST", "/v1/documents", {"title": "T", "vault_id": "vault_mock_us"}, None),
    ("POST", "/v1/documents", {"title": "T", "vault_id": "vault_mock_us"}, READONLY),
    ("POST", "/v1/documents", {"title": "T"}, None),
    ("POST", "/v1/documents", b"{nope", None),
    ("GET", "/v1/documents/doc_mock_signed", None, None),
    ("GET", "/v1/documents/doc_mock_draft", None, ""),
    ("DELETE", "/v1/documents/doc_mock_draft", None, None),
    ("DELETE", "/v1/documents/doc_mock_legal_hold", None, None),
    (
        "POST",
        "/v1/workflows",
        {"document_id": "doc_mock_draft", "steps": [{"assignee": "a@b.co"}]},
        None,
    ),
    (
        "POST",
        "/v1/workflows",
        {"document_id": "doc_mock_signed", "steps": [{"assignee": "a@b.co"}]},
        None,
    ),
    ("GET", "/v1/audit_logs?limit=2&since=2020-01-01", None, None),
    ("GET", "/v1/audit_logs?until=yesterday", None, None),
    ("POST", "/v1/audit_logs/export", {"period": "2026-01-01/2026-01-31"}, None),
    ("GET", "/v1/audit_logs/export/exp_nope", None, None),
    ("GET", "/v1/audit_logs/export/exp_nope/download?expires=1&signature=x", None, ""),
    ("GET", "/v1/oauth/authorize?response_type=code&client_id=mock_client", None, ""),
    ("GET", "/v1/oauth/authorize?client_id=nope", None, ""),
    ("POST", "/v1/oauth/token", {"grant_type": "authorization_code", "code": "x"}, ""),
]


@pytest.mark.parametrize(("method", "path", "body", "key"), ANSWERS)
def test_answers_conform_to_the_document(
    both: httpx.Client,
    document: dict[str, Any],
    method: str,
    path: str,
    body: object,
    key: str | None,
) -> None:
    headers = {} if key is None else {"Authorization": f"Bearer {key}" if key else ""}
    if path.startswith("/v1/oauth/token"):
        response = both.post(path, data=body, headers=headers)  # type: ignore[arg-type]
    elif isinstance(body, bytes):
        response = both.request(method, path, content=body, headers=headers)
    else:
        response = both.request(method, path, json=body, headers=headers)
    assert_conforms(document, response)


def test_workflow_and_export_lifecycles_conform(
    both: httpx.Client, document: dict[str, Any]
) -> None:
    steps = [{"assignee": "a@b.co"}, {"assignee": "b@b.co", "condition": "status == 'x'"}]
    created = both.post("/v1/workflows", json={"document_id": "doc_mock_draft", "steps": steps})
    assert_conforms(document, created)
    workflow = created.json()["id"]
    for call in (
        both.post(f"/v1/workflows/{workflow}/advance", json={"decision": "approve"}),
        both.post(f"/v1/workflows/{workflow}/advance", json={"decision": "approve"}),
        both.get(f"/v1/workflows/{workflow}"),
        both.get("/v1/documents/doc_mock_draft"),
    ):
        assert_conforms(document, call)
    job = both.post("/v1/audit_logs/export", json={"period": "2020-01-01/2030-01-01"}).json()
    both.post("/_mock/clock/advance", json={"seconds": 2})
    polled = both.get(f"/v1/audit_logs/export/{job['id']}")
    assert_conforms(document, polled)
    url = httpx.URL(polled.json()["download_url"])
    download = both.get(url.raw_path.decode(), headers={"Authorization": ""})
    assert download.status_code == 200
    assert_conforms(document, download)


def test_oauth_flow_conforms(both: httpx.Client, document: dict[str, Any]) -> None:
    both.headers.pop("Authorization")
    redirect = authorize(both, code_challenge=CHALLENGE, code_challenge_method="S256")
    assert_conforms(document, redirect)
    code = redirected(redirect)["code"]
    assert_conforms(document, exchange(both, code, code_verifier="x" * 43))  # 400 invalid_grant
    assert_conforms(document, exchange(both, code, auth=(CLIENT_ID, "wrong")))  # 401
    token = exchange(both, code, code_verifier=VERIFIER)
    assert token.status_code == 200
    assert_conforms(document, token)
    whoami = both.get("/v1/whoami", headers=bearer(token.json()["access_token"]))
    assert whoami.status_code == 200
    assert_conforms(document, whoami)


@pytest.mark.parametrize(
    ("status", "headers", "body"),
    [
        (200, {"X-Request-Id": "req_1"}, {"account_id": "acct_1"}),  # fields missing
        (200, {}, None),  # no X-Request-Id
        (418, {"X-Request-Id": "req_1"}, {}),  # undocumented status
        (404, {"X-Request-Id": "req_1"}, {"error": {"type": "conflict", "message": "m"}}),
    ],
)
def test_conformance_helper_rejects_what_the_document_does_not_allow(
    document: dict[str, Any], status: int, headers: dict[str, str], body: object
) -> None:
    whoami = {
        "account_id": "acct_1",
        "region": "us",
        "environment": "sandbox",
        "scopes": [],
        "rate_limit": 1,
    }
    response = httpx.Response(
        status,
        headers=headers,
        json=whoami if body is None else body,
        request=httpx.Request("GET", "http://mock/v1/whoami"),
    )
    with pytest.raises((AssertionError, jsonschema.ValidationError)):
        assert_conforms(document, response)
