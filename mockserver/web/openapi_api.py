"""`GET /v1/openapi.json`: the OpenAPI 3.1 document of this server, with no credential needed.

Built once per app, on first request, for the store's field limits (the seed may change them),
so it is the same bytes `mockserver openapi` prints for the same seed.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.openapi import document_bytes
from mockserver.web.context import store_of
from mockserver.web.render import JSON


async def openapi_document(request: Request) -> Response:
    state = request.app.state
    body: bytes | None = getattr(state, "openapi_document", None)
    if body is None:
        body = state.openapi_document = document_bytes(store_of(request).limits)
    return Response(body, media_type=JSON)
