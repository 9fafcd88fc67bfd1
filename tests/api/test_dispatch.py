"""How the app answers what its routes do not serve: the `/v1` operations, the control plane
mounted at `/_mock` and the inspector at `/_mock/ui` alike answer an unknown URL or method with
the 404 envelope (never Starlette's 404 or 405) and a path served with its trailing slash
toggled with a 307 redirect there."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

from tests.support.routes import route_table


def test_the_app_serves_the_api_the_control_plane_and_the_inspector(
    fresh_app: Starlette,
) -> None:
    paths = {path for _, path in route_table(fresh_app)}
    assert "/v1/documents/{doc_id}" in paths
    assert "/_mock/reset" in paths
    assert "/_mock/accounts/{account_id}/clock/advance" in paths
    assert "/_mock/ui" in paths
    assert "/_mock/ui/requests/{seq:int}" in paths


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", "/v1/documents/doc_mock_draft"),
        ("GET", "/v1/nothing"),
        ("POST", "/v1/whoami"),
        ("GET", "/_mock/reset"),
        ("GET", "/_mock/nothing"),
        ("GET", "/_mock"),
        ("GET", "/_mock/"),
        ("PUT", "/_mock/accounts/acct_x/clock"),
        ("POST", "/_mock/ui/requests"),
        ("GET", "/_mock/ui/requests/x"),
        ("GET", "/_mock/ui/nothing"),
    ],
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


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/v1/documents/doc_mock_draft/", "/v1/documents/doc_mock_draft"),
        ("/_mock/clock/", "/_mock/clock"),
        ("/_mock/reset/?a=1", "/_mock/reset?a=1"),
        ("/_mock/ui/", "/_mock/ui"),
        ("/_mock/ui/state/", "/_mock/ui/state"),
    ],
)
def test_a_trailing_slash_is_redirected_as_before(
    api: httpx.Client, path: str, target: str
) -> None:
    response = api.get(path, follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"] == f"{api.base_url.scheme}://{api.base_url.host}{target}"
    assert response.content == b""


def test_head_is_served_like_get(api: httpx.Client) -> None:
    got = api.get("/v1/documents/doc_mock_draft")
    head = api.head("/v1/documents/doc_mock_draft")
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == got.headers["content-length"]
