"""The shipped tour of `conform` touches every endpoint and every error a client can cause."""

from __future__ import annotations

import re

from mockserver.fidelity.tour import tour_path
from mockserver.openapi.document import build_document
from mockserver.scenarios.loader import load_scenario

# The API's error table (400 to 500); a healthy service cannot be made to answer 500.
PROVOKABLE = {400, 401, 403, 404, 409, 422, 429}


def _operations() -> set[tuple[str, str]]:
    """(METHOD, path pattern) of every operation of the OpenAPI document, under /v1."""
    paths = build_document()["paths"]
    return {
        (method.upper(), "/v1" + path)
        for path, item in paths.items()
        for method in item
        if method in ("get", "post", "delete", "put", "patch")
    }


def _matches(pattern: str, path: str) -> bool:
    regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(pattern))
    return re.fullmatch(regex, path) is not None


def test_every_endpoint_and_every_provokable_error_is_in_the_tour() -> None:
    tour = load_scenario(tour_path())
    sent: list[tuple[str, str]] = []
    statuses: set[int] = set()
    for step in tour.steps:
        if step.kind != "request":
            continue
        request = step.data["request"]
        path = re.sub(r"^/(us|eu)/", "/", request["path"])
        if path == "${download}" or path.startswith("${download}"):
            path = "/v1/audit_logs/export/${export}/download"
        sent.append((request["method"], re.sub(r"\$\{\w+\}", "x_1", path)))
        statuses.add(step.data.get("expect", {}).get("status", 0))
    untouched = {
        (method, pattern)
        for method, pattern in _operations()
        if not any(m == method and _matches(pattern, p) for m, p in sent)
    }
    assert untouched == set()
    assert PROVOKABLE <= statuses
