"""The route table of `/v1`. Regional prefixes are stripped by the pipeline before routing."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from . import core_api, lifecycle_api, oauth_api, openapi_api, webhooks_api


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
