"""`/v1/documents`: list, create, get and delete documents."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.operations import resources
from mockserver.web.api.operate import Endpoint, Run, operate


async def list_documents(request: Request) -> Response:
    """`GET /v1/documents`."""
    return await operate(request, resources.list_documents)


async def create_document(request: Request) -> Response:
    """`POST /v1/documents`."""
    return await operate(request, resources.create_document)


async def get_document(request: Request) -> Response:
    """`GET /v1/documents/{doc_id}`."""
    return await operate(request, resources.get_document)


async def delete_document(request: Request) -> Response:
    """`DELETE /v1/documents/{doc_id}`."""
    return await operate(request, resources.delete_document)


def endpoints() -> dict[Run, Endpoint]:
    """Each operation's function (as the module has it now) and its endpoint."""
    return {
        resources.list_documents: list_documents,
        resources.create_document: create_document,
        resources.get_document: get_document,
        resources.delete_document: delete_document,
    }
