"""The route table of `/v1`. Regional prefixes are stripped by the pipeline before routing."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from . import core_api, oauth_api


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
    ]
