"""`/v1/whoami` (the caller) and `/v1/openapi.json` (the API's OpenAPI document)."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.sandbox import SandboxState
from mockserver.web.api.call import answer, call_of


async def whoami(request: Request) -> Response:
    """`GET /v1/whoami`."""
    call = await call_of(request, "")
    principal = call.principal
    return answer(
        orjson.dumps(
            {
                "account_id": principal.account_id,
                "region": call.world.account.default_region,
                "environment": principal.environment,
                "scopes": sorted(principal.scopes),
                "rate_limit": principal.rate_limit,
            }
        )
    )


async def openapi(request: Request) -> Response:
    """`GET /v1/openapi.json`: the OpenAPI document of the request's sandbox, built once, on
    first request, for the store's field limits (the seed may change them), so it is the same
    bytes `mockserver openapi` prints for the same seed."""
    sandbox: SandboxState = request.scope["state"]["sandbox"]
    if sandbox.openapi is None:
        # Imported here: the document's builder is needed by the first request for it only.
        from mockserver.openapi import document_bytes

        sandbox.openapi = document_bytes(sandbox.store.limits)
    return answer(sandbox.openapi)
