"""What every `/v1` endpoint does: run its operation for the request's sandbox and answer.

An endpoint names its operation by the function that runs it (`engine/operations/`); the
sandbox's `Api` finds what the operation needs (its scope, its body) and runs it for the
caller the middleware resolved (`engine/api.py` `Api.serve`). An error goes up to the
`Errors` middleware, which renders the envelope.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine.answers import answer_response
from mockserver.engine.api import Api
from mockserver.engine.calls import Answer
from mockserver.engine.request_state import RequestState
from mockserver.engine.sandbox import SandboxState

Run = Callable[..., Answer]  # an operation's function (`Call` to `Answer`)
Endpoint = Callable[[Request], Any]


async def operate(request: Request, run: Run) -> Response:
    """The answer of the operation `run` to `request`, on the sandbox that answers it."""
    sandbox: SandboxState = request.scope["state"]["sandbox"]
    state: RequestState = request.scope["state"]["request"]
    api = sandbox.api
    answer = await api.serve(api.operation_of(run), state, request.path_params)
    response = answer_response(answer)
    sent = Response(status_code=response.status)
    sent.body = response.body
    sent.raw_headers = response.headers  # as the operation made them, in their order
    return sent


def api_routes(api: Api, endpoints: dict[Run, Endpoint]) -> list[Route]:
    """A Starlette route per operation of `api`'s table, in its order, served by the endpoint
    `endpoints` gives for the operation's function."""
    return [
        Route(operation.path, endpoints[Api.key(operation.run)], methods=[operation.method])
        for operation in api.operations
    ]
