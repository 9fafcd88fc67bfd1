"""The route table of `/v1`. Regional prefixes are stripped by the pipeline before routing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NamedTuple

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.web import core_api, lifecycle_api, oauth_api, openapi_api, webhooks_api


def v1_routes() -> list[BaseRoute]:
    return [
        Route("/v1/whoami", core_api.whoami, methods=["GET"]),
        Route("/v1/oauth/authorize", oauth_api.authorize, methods=["GET"]),
        Route("/v1/oauth/token", oauth_api.token, methods=["POST"]),
        Route("/v1/vaults", core_api.list_vaults, methods=["GET"]),
        Route("/v1/vaults", core_api.create_vault, methods=["POST"]),
        Route("/v1/vaults/{vault_id}", core_api.get_vault, methods=["GET"]),
        Route("/v1/documents", core_api.list_documents, methods=["GET"]),
        Route("/v1/documents", core_api.create_document, methods=["POST"]),
        Route("/v1/documents/{doc_id}", core_api.get_document, methods=["GET"]),
        Route("/v1/documents/{doc_id}", core_api.delete_document, methods=["DELETE"]),
        Route("/v1/workflows", lifecycle_api.create_workflow, methods=["POST"]),
        Route("/v1/workflows/{workflow_id}", lifecycle_api.get_workflow, methods=["GET"]),
        Route(
            "/v1/workflows/{workflow_id}/advance", lifecycle_api.advance_workflow, methods=["POST"]
        ),
        Route("/v1/audit_logs", lifecycle_api.list_audit_logs, methods=["GET"]),
        Route("/v1/audit_logs/export", lifecycle_api.create_export, methods=["POST"]),
        Route("/v1/audit_logs/export/{export_id}", lifecycle_api.get_export, methods=["GET"]),
        Route(
            "/v1/audit_logs/export/{export_id}/download",
            lifecycle_api.download_export,
            methods=["GET"],
        ),
        Route("/v1/webhook_endpoints", webhooks_api.list_endpoints, methods=["GET"]),
        Route("/v1/webhook_endpoints", webhooks_api.create_endpoint, methods=["POST"]),
        Route(
            "/v1/webhook_endpoints/{endpoint_id}", webhooks_api.delete_endpoint, methods=["DELETE"]
        ),
        Route("/v1/openapi.json", openapi_api.openapi_document, methods=["GET"]),
    ]


# (endpoint, the route, its path parameters) of a request the table serves.
Hit = tuple[Callable[[Request], Awaitable[Response]], Route, dict[str, str]]


class _Template(NamedTuple):
    literals: tuple[tuple[int, str], ...]  # (segment index, text) of the literal segments
    params: tuple[tuple[int, str], ...]  # (segment index, name) of the parameters
    route: Route


class RouteTable:
    """A direct lookup of `/v1` routes by method, segment count and first segment after `/v1`,
    instead of Starlette's scan of every route's regex.

    It answers only what it is sure of: the literal segments equal and every parameter
    non-empty, which is exactly when the route's `[^/]+` pattern matches (no two routes of the
    table match one path). Anything else (another method of a known path, trailing slashes,
    unknown paths, `/_mock`) gets None and goes to the Starlette router, which answers as it
    always did (404 envelope, redirects)."""

    __slots__ = ("_buckets",)

    def __init__(self, routes: list[BaseRoute]) -> None:
        self._buckets: dict[tuple[str, int, str], list[_Template]] = {}
        for route in routes:
            if not isinstance(route, Route) or not route.path.startswith("/v1/"):
                continue
            parts = route.path.split("/")
            literals = tuple((i, p) for i, p in enumerate(parts) if not p.startswith("{"))
            params = tuple((i, p[1:-1]) for i, p in enumerate(parts) if p.startswith("{"))
            if any(":" in name for _, name in params) or parts[2].startswith("{"):
                continue  # typed parameters and a parameter first: left to the router
            for method in route.methods or ():
                key = (method, len(parts), parts[2])
                self._buckets.setdefault(key, []).append(_Template(literals, params, route))

    def lookup(self, method: str, path: str) -> Hit | None:
        parts = path.split("/")
        if len(parts) < 3:
            return None
        for template in self._buckets.get((method, len(parts), parts[2]), ()):
            for i, text in template.literals:
                if parts[i] != text:
                    break
            else:
                params: dict[str, str] = {}
                for i, name in template.params:
                    if not parts[i]:
                        break
                    params[name] = parts[i]
                else:
                    return template.route.endpoint, template.route, params
        return None
