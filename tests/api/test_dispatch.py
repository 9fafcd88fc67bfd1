"""The dispatcher's route table against Starlette's router: for every path the table serves it
names the route the router would pick, with the same parameters, and it leaves to the router
whatever it is not sure of (which then answers as before: 404 envelope, slash redirects)."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Match, Route

from mockserver.core.config import Settings
from mockserver.engine.api import Api
from mockserver.engine.sandbox import Sandbox
from mockserver.web.routes import RouteTable, v1_routes


def _api() -> Api:
    return Sandbox.build(Settings(clock_mode="frozen")).api


PATHS = [
    "/v1/whoami",
    "/v1/documents",
    "/v1/documents/doc_mock_draft",
    "/v1/documents/doc_mock_draft/",
    "/v1/documents/",
    "/v1/documents//",
    "/v1/documents/a/b",
    "/v1/documents/doc_x\n",
    "/v1/whoami\n",
    "/v1/vaults/vault_mock_us",
    "/v1/workflows/wf_1/advance",
    "/v1/workflows//advance",
    "/v1/audit_logs/export",
    "/v1/audit_logs/export/exp_1",
    "/v1/audit_logs/export/exp_1/download",
    "/v1/webhook_endpoints/we_1",
    "/v1/openapi.json",
    "/v1/oauth/token",
    "/v1",
    "/v1/",
    "/v2/documents",
    "/_mock/requests",
    "/",
    "",
]
METHODS = ["GET", "HEAD", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"]


def _router_pick(
    routes: list[Route], method: str, path: str
) -> tuple[Route, dict[str, str]] | None:
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    for route in routes:
        match, child = route.matches(scope)
        if match is Match.FULL:
            return route, child["path_params"]
    return None


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", PATHS)
def test_the_table_picks_what_the_router_picks_or_nothing(method: str, path: str) -> None:
    routes = [r for r in v1_routes(_api()) if isinstance(r, Route)]
    hit = RouteTable(list(routes)).lookup(method, path)
    picked = _router_pick(routes, method, path)
    if hit is None:  # left to the router: only where the table cannot be sure
        assert picked is None or not path.startswith("/v1/") or path.endswith("\n")
        return
    endpoint, route, params = hit
    assert picked is not None
    assert (route, params) == picked
    assert endpoint is route.endpoint


def test_every_v1_route_and_method_is_served_by_the_table() -> None:
    routes = [r for r in v1_routes(_api()) if isinstance(r, Route)]
    table = RouteTable(list(routes))
    for route in routes:
        path = route.path.replace("{", "x_").replace("}", "")
        for method in route.methods or ():
            hit = table.lookup(method, path)
            assert hit is not None, (method, path)
            assert hit[1] is route


def test_the_app_still_lists_its_routes(fresh_app: Starlette) -> None:
    paths = {r.path for r in fresh_app.routes if isinstance(r, Route)}
    assert "/v1/documents/{doc_id}" in paths
    assert "/_mock/reset" in paths


@pytest.mark.parametrize(
    ("method", "path"),
    [("PUT", "/v1/documents/doc_mock_draft"), ("GET", "/v1/nothing"), ("POST", "/v1/whoami")],
)
def test_unknown_methods_and_paths_are_the_404_envelope(
    api: httpx.Client, method: str, path: str
) -> None:
    response = api.request(method, path)
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["type"] == "not_found"
    assert error["message"] == f"Unrecognized request URL ({method} {path})."
    assert error["request_id"] == response.headers["x-request-id"]


def test_a_trailing_slash_is_redirected_as_before(api: httpx.Client) -> None:
    response = api.get("/v1/documents/doc_mock_draft/", follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"].endswith("/v1/documents/doc_mock_draft")


def test_head_is_served_like_get(api: httpx.Client) -> None:
    got = api.get("/v1/documents/doc_mock_draft")
    head = api.head("/v1/documents/doc_mock_draft")
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == got.headers["content-length"]
