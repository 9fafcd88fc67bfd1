"""The OpenAPI document's links (mockserver/openapi/links.py): each names a real operation and
its real parameters and body fields, and following them from a new vault leads to a workflow's
read, as schemathesis' stateful phase follows them (tests/e2e/test_conformance.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.openapi import METHODS, resolve

PREFIX = "$response.body#"


@pytest.fixture
def document(api: httpx.Client) -> dict[str, Any]:
    body: dict[str, Any] = api.get("/v1/openapi.json").json()
    return body


def operations(document: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """operationId -> (method, path, operation)."""
    return {
        operation["operationId"]: (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    }


def links(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(source operationId, link name, link) of every link in the document."""
    return [
        (operation["operationId"], name, link)
        for _, _, operation in operations(document).values()
        for answer in operation["responses"].values()
        for name, link in resolve(document, answer).get("links", {}).items()
    ]


def parameter_names(document: dict[str, Any], operation: dict[str, Any]) -> set[str]:
    return {resolve(document, parameter)["name"] for parameter in operation.get("parameters", [])}


def body_fields(document: dict[str, Any], operation: dict[str, Any]) -> set[str]:
    content = operation.get("requestBody", {}).get("content", {})
    schema = resolve(document, content.get("application/json", {}).get("schema", {}))
    return set(schema.get("properties", {}))


def test_every_link_names_a_real_operation_parameter_and_body_field(
    document: dict[str, Any],
) -> None:
    known = operations(document)
    for source, name, link in links(document):
        assert link["operationId"] in known, (source, name)
        _, _, target = known[link["operationId"]]
        where = (source, name, link["operationId"])
        assert set(link.get("parameters", {})) <= parameter_names(document, target), where
        assert set(link.get("requestBody", {})) <= body_fields(document, target), where


def test_a_workflow_s_read_is_linked_from_the_operations_that_give_a_workflow_id(
    document: dict[str, Any],
) -> None:
    known = operations(document)
    assert known["getWorkflow"][:2] == ("GET", "/workflows/{workflow_id}")
    to_read = {
        source
        for source, _, link in links(document)
        if link["operationId"] == "getWorkflow"
        and link["parameters"] == {"workflow_id": f"{PREFIX}/id"}
    }
    assert to_read == {"createWorkflow", "advanceWorkflow"}


def evaluate(value: Any, answer: Any) -> Any:
    """A link's value against the answer it hangs on: `$response.body#/pointer` expressions
    (nested in objects and lists) resolved, literals kept."""
    if isinstance(value, dict):
        return {key: evaluate(item, answer) for key, item in value.items()}
    if isinstance(value, list):
        return [evaluate(item, answer) for item in value]
    if isinstance(value, str) and value.startswith(PREFIX):
        for token in value.removeprefix(PREFIX).split("/")[1:]:
            answer = answer[int(token)] if isinstance(answer, list) else answer[token]
        return answer
    return value


def follow(
    api: httpx.Client,
    document: dict[str, Any],
    answer: httpx.Response,
    source: str,
    name: str,
    generated: dict[str, Any] | None = None,
) -> httpx.Response:
    """Make the request that link `name` of `source`'s answer leads to: its parameters and body
    from the answer, over `generated` (what a fuzzer would have generated of the body)."""
    known = operations(document)
    _, _, operation = known[source]
    [success] = [s for s in operation["responses"] if s.startswith("2")]
    link = resolve(document, operation["responses"][success])["links"][name]
    method, path, _ = known[link["operationId"]]
    parameters = evaluate(link.get("parameters", {}), answer.json())
    for parameter, value in list(parameters.items()):
        if "{" + parameter + "}" in path:
            path = path.replace("{" + parameter + "}", value)
            del parameters[parameter]
    body = None
    if "requestBody" in link:
        body = {**(generated or {}), **evaluate(link["requestBody"], answer.json())}
    return api.request(method, "/v1" + path, params=parameters, json=body)


def test_the_links_lead_from_a_new_vault_to_a_workflow_s_read(
    api: httpx.Client, document: dict[str, Any]
) -> None:
    """Found: the link that starts a workflow gave only `document_id`, so every body a fuzzer
    sent through it carried generated steps, whose conditions nearly never parse (422): a
    stateful-only schemathesis run (the suite's seed and budget) sent 6 and created no
    workflow, so it never read one. Here the link's body is sent as it is, nothing generated."""
    vault = api.post("/v1/vaults", json={"name": "Linked", "region": "us"})
    assert vault.status_code == 201, vault.text
    document_answer = follow(api, document, vault, "createVault", "createDocument", {"title": "L"})
    assert document_answer.status_code == 201, document_answer.text
    workflow = follow(api, document, document_answer, "createDocument", "createWorkflow")
    assert workflow.status_code == 201, workflow.text
    read = follow(api, document, workflow, "createWorkflow", "getWorkflow")
    assert read.status_code == 200, read.text
    assert read.json()["id"] == workflow.json()["id"]
