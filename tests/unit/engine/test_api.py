"""The engine's API without HTTP: typed calls to typed answers, refusals as ApiErrors, and the
The same operations serve HTTP (tests/api)."""

from __future__ import annotations

import orjson
import pytest

from mockserver.core.config import Settings
from mockserver.core.errors import ApiError
from mockserver.engine.api import Api
from mockserver.engine.calls import Answer, Operation
from mockserver.engine.sandbox import SandboxState

FULL = "Bearer sk_test_mock_full"
READ_ONLY = "Bearer sk_test_mock_readonly"
BASE = "http://127.0.0.1:8080"


@pytest.fixture
def api() -> Api:
    return SandboxState.build(Settings(clock_mode="frozen")).api


def _call(
    api: Api,
    method: str,
    path: str,
    *,
    authorization: str | None = FULL,
    params: dict[str, str] | None = None,
    query: list[tuple[str, str]] | None = None,
    body: object = None,
) -> Answer:
    operation = api.operation(method, path)
    caller = api.authorize(operation, authorization, None)
    pairs = query or []
    call = api.admit(caller, None, params or {}, dict(pairs), pairs, lambda: BASE, authorization)
    call.body = body
    return api.run(operation, call)


def test_every_route_of_the_table_is_found_by_method_and_template(api: Api) -> None:
    for operation in api.operations:
        assert api.operation(operation.method, operation.path) is operation
    with pytest.raises(KeyError):
        api.operation("PATCH", "/v1/documents/{doc_id}")


def test_whoami_answers_the_caller(api: Api) -> None:
    answer = _call(api, "GET", "/v1/whoami")
    assert (answer.status, answer.media_type, answer.headers) == (200, "application/json", None)
    who = orjson.loads(answer.body)
    assert (who["account_id"], who["environment"]) == ("acct_mock_us", "sandbox")


def test_a_vault_made_through_the_engine_is_read_back(api: Api) -> None:
    body = {"name": "Engine vault", "region": "us"}
    created = _call(api, "POST", "/v1/vaults", body=body)
    assert created.status == 201
    vault_id = orjson.loads(created.body)["id"]
    read = _call(api, "GET", "/v1/vaults/{vault_id}", params={"vault_id": vault_id})
    assert (read.status, orjson.loads(read.body)["name"]) == (200, "Engine vault")


@pytest.mark.parametrize(
    ("authorization", "status", "error_type"),
    [
        (None, 401, "authentication_error"),
        ("Bearer sk_test_nobody", 401, "authentication_error"),
        (READ_ONLY, 403, "permission_error"),
    ],
)
def test_authorize_refuses_before_anything_runs(
    api: Api, authorization: str | None, status: int, error_type: str
) -> None:
    operation = api.operation("POST", "/v1/vaults")
    with pytest.raises(ApiError) as refused:
        api.authorize(operation, authorization, None)
    assert (refused.value.status, refused.value.type) == (status, error_type)


def test_a_repeated_query_parameter_is_refused_naming_it(api: Api) -> None:
    pairs = [("limit", "5"), ("limit", "6")]
    caller = api.authorize(api.operation("GET", "/v1/documents"), FULL, None)
    with pytest.raises(ApiError) as refused:
        api.admit(caller, None, {}, dict(pairs), pairs, lambda: BASE, FULL)
    assert (refused.value.status, refused.value.param) == (422, "limit")


def test_a_credential_free_operation_takes_no_caller(api: Api) -> None:
    operation = api.operation("GET", "/v1/openapi.json")
    assert api.authorize(operation, None, None) is None
    answer = _call(api, "GET", "/v1/openapi.json", authorization=None)
    assert answer.status == 200
    assert orjson.loads(answer.body)["openapi"].startswith("3.1")
    assert _call(api, "GET", "/v1/openapi.json", authorization=None).body is answer.body


def test_an_oauth_refusal_is_dressed_by_the_operation(api: Api) -> None:
    operation: Operation = api.operation("POST", "/v1/oauth/token")
    assert operation.refusal is not None
    call = api.admit(None, None, {}, {}, [], lambda: BASE, None)
    call.body = [("grant_type", "authorization_code")]
    with pytest.raises(ApiError) as refused:
        api.run(operation, call)
    dressed = operation.refusal(refused.value)
    assert dressed.headers["Cache-Control"] == "no-store"
    assert dressed.code is not None
