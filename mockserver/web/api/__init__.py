"""The `/v1` routes: one Starlette `Route` per operation, served by a plain async endpoint of
its resource's module, which calls its domain function (`call.py` does what every endpoint
does around it). The table is in the order the API reference lists the operations."""

from __future__ import annotations

from starlette.routing import Route

from mockserver.web.api import (
    audit_logs,
    documents,
    meta,
    oauth,
    vaults,
    webhook_endpoints,
    workflows,
)


def routes() -> list[Route]:
    """Every `/v1` route, in the table's order."""
    return [
        Route("/v1/whoami", meta.whoami, methods=["GET"]),
        Route("/v1/oauth/authorize", oauth.authorize, methods=["GET"]),
        Route("/v1/oauth/token", oauth.token, methods=["POST"]),
        Route("/v1/vaults", vaults.list_vaults, methods=["GET"]),
        Route("/v1/vaults", vaults.create_vault, methods=["POST"]),
        Route("/v1/vaults/{vault_id}", vaults.get_vault, methods=["GET"]),
        Route("/v1/documents", documents.list_documents, methods=["GET"]),
        Route("/v1/documents", documents.create_document, methods=["POST"]),
        Route("/v1/documents/{doc_id}", documents.get_document, methods=["GET"]),
        Route("/v1/documents/{doc_id}", documents.delete_document, methods=["DELETE"]),
        Route("/v1/workflows", workflows.create_workflow, methods=["POST"]),
        Route("/v1/workflows/{workflow_id}", workflows.get_workflow, methods=["GET"]),
        Route("/v1/workflows/{workflow_id}/advance", workflows.advance_workflow, methods=["POST"]),
        Route("/v1/audit_logs", audit_logs.list_audit_logs, methods=["GET"]),
        Route("/v1/audit_logs/export", audit_logs.create_export, methods=["POST"]),
        Route("/v1/audit_logs/export/{export_id}", audit_logs.get_export, methods=["GET"]),
        Route(
            "/v1/audit_logs/export/{export_id}/download",
            audit_logs.download_export,
            methods=["GET"],
        ),
        Route("/v1/webhook_endpoints", webhook_endpoints.list_endpoints, methods=["GET"]),
        Route("/v1/webhook_endpoints", webhook_endpoints.create_endpoint, methods=["POST"]),
        Route(
            "/v1/webhook_endpoints/{endpoint_id}",
            webhook_endpoints.delete_endpoint,
            methods=["DELETE"],
        ),
        Route("/v1/openapi.json", meta.openapi, methods=["GET"]),
    ]
