"""The sandbox's router against Starlette's: for every method and path it picks the route
Starlette's router would pick for the same templates, with the same parameters, and answers an
unknown URL as before (404 envelope, slash redirects)."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Match, Route

from mockserver.core.config import Settings
from mockserver.engine.routing import Router
from mockserver.engine.sandbox import SandboxState


def _router() -> Router:
    return SandboxState.build(Settings(clock_mode="frozen")).router


async def _nothing() -> None:
    return None


def _starlette_routes(router: Router) -> list[Route]:
    """Starlette routes of the same templates and methods (typed parameters as Starlette
    writes them), in the same order."""
    return [
        Route(route.template, _nothing, methods=sorted(route.methods - {"HEAD"}))
        for route in router.routes
    ]


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
def test_the_router_picks_what_starlette_picks(method: str, path: str) -> None:
    router = _router()
    found = router.find(method, path)
    picked = _router_pick(_starlette_routes(router), method, path)
    if picked is None:
        assert found is None
        return
    assert found is not None
    route, params = found
    assert route.template == picked[0].path
    assert params == picked[1]


def test_every_route_and_method_is_found() -> None:
    router = _router()
    for route in router.routes:
        path = route.template.replace("{seq:int}", "7").replace("{", "x_").replace("}", "")
        for method in route.methods:
            found = router.find(method, path)
            assert found is not None, (method, path)
            assert found[0] is route


def test_the_sandbox_serves_the_api_and_the_control_plane(fresh_app: Starlette) -> None:
    templates = {route.template for route in fresh_app.state.sandbox.router.routes}
    assert "/v1/documents/{doc_id}" in templates
    assert "/_mock/reset" in templates
    assert "/_mock/ui/requests/{seq:int}" in templates


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
