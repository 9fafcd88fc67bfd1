"""What the OpenAPI tests share: the document's operations, schema checks, and the list of
what it describes that this branch does not serve yet.

PENDING_ROUTES and PENDING_HEADERS name what other branches are adding right now (webhook
endpoints; rate-limit and idempotency headers). The document describes them from the spec,
since the merged mock serves them; until then the route-parity test allows the routes to be
missing and the schemathesis run leaves them out. Each entry is checked to be still missing,
so a merge that brings one in fails a test until its entry is deleted here.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import httpx
import jsonschema
from starlette.applications import Starlette

from tests.support.routes import route_table

PENDING_ROUTES: frozenset[tuple[str, str]] = frozenset()
PENDING_RESPONSE_HEADERS: frozenset[str] = frozenset()
PENDING_REQUEST_HEADERS: frozenset[str] = frozenset()

METHODS = ("get", "post", "put", "patch", "delete")
_PARAM = re.compile(r"\{[^}]*\}")


def normalise(path: str) -> str:
    """A path with its parameter names dropped: `/v1/documents/{}`."""
    return _PARAM.sub("{}", path)


def documented_routes(document: dict[str, Any]) -> set[tuple[str, str]]:
    """(METHOD, /v1/path) of every operation of the document."""
    return {
        (method.upper(), normalise("/v1" + path))
        for path, item in document["paths"].items()
        for method in item
        if method in METHODS
    }


def served_routes(app: Starlette) -> set[tuple[str, str]]:
    """(METHOD, path) of every `/v1` route of the app's sandbox (HEAD, which every GET
    serves too, left out)."""
    return {
        (method, normalise(path))
        for methods, path in route_table(app)
        if path.startswith("/v1/")
        for method in methods
        if method != "HEAD"
    }


def operation_for(document: dict[str, Any], method: str, url_path: str) -> dict[str, Any]:
    """The operation a request path (with or without a regional prefix) is served by."""
    path = re.sub(r"^/(us|eu)/v1", "/v1", url_path).removeprefix("/v1")
    for template, item in document["paths"].items():
        pattern = "/".join(
            "[^/]+" if _PARAM.fullmatch(part) else re.escape(part) for part in template.split("/")
        )
        if re.fullmatch(pattern, path) and method.lower() in item:
            operation: dict[str, Any] = item[method.lower()]
            return operation
    raise AssertionError(f"{method} {url_path} is not in the document")


def resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref`."""
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def assert_conforms(document: dict[str, Any], response: httpx.Response) -> None:
    """The response's status, content type, headers and body are the ones its operation
    documents."""
    request = response.request
    operation = operation_for(document, request.method, request.url.path)
    status = str(response.status_code)
    assert status in operation["responses"], f"{request.method} {request.url.path}: {status}"
    spec = resolve(document, operation["responses"][status])
    for name, header in spec.get("headers", {}).items():
        header = resolve(document, header)
        if header.get("required") and name not in PENDING_RESPONSE_HEADERS:
            assert name.lower() in response.headers, f"missing header {name}"
    content = spec.get("content")
    if content is None:
        assert not response.content
        return
    (media_type, body) = next(iter(content.items()))
    assert response.headers["content-type"].split(";")[0] == media_type
    if media_type == "application/json":
        schema = {**body["schema"], "components": document["components"]}
        jsonschema.Draft202012Validator(schema).validate(response.json())


def without_pending(document: dict[str, Any]) -> dict[str, Any]:
    """The document less what this branch does not serve yet (see the module docstring)."""
    trimmed = copy.deepcopy(document)
    for path in list(trimmed["paths"]):
        item = trimmed["paths"][path]
        for method in [m for m in item if (m.upper(), normalise("/v1" + path)) in PENDING_ROUTES]:
            del item[method]
        if not item:
            del trimmed["paths"][path]
    headers = trimmed["components"]["headers"]
    for name in PENDING_RESPONSE_HEADERS:
        headers[name].pop("required", None)
    parameters = trimmed["components"]["parameters"]
    pending_refs = set()
    for name in list(parameters):
        if (
            parameters[name]["in"] == "header"
            and parameters[name]["name"] in PENDING_REQUEST_HEADERS
        ):
            pending_refs.add(f"#/components/parameters/{name}")
            del parameters[name]
    for item in trimmed["paths"].values():
        for operation in item.values():
            kept = [p for p in operation.get("parameters", []) if p.get("$ref") not in pending_refs]
            if kept:
                operation["parameters"] = kept
            else:
                operation.pop("parameters", None)
    return trimmed
