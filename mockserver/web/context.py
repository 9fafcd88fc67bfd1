"""Per-request context: what the pipeline learns about a request.

The pipeline turns each ASGI request into one `RequestContext` (its request id, the store, the
routed region, and what rate limiting, idempotency and scenarios learn along the way) and puts
it in the scope under one key, `CONTEXT`; every later step reads and writes that typed object
through `context_of`, never loose scope keys. `store_of`, `control_of` and `webhooks_of` give
the parts of the sandbox an app serves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, final

from starlette.requests import Request
from starlette.types import Scope

from mockserver.domain.auth import Principal
from mockserver.domain.store import Store

if TYPE_CHECKING:
    from mockserver.engine.control import Control
    from mockserver.engine.explain import Refusal
    from mockserver.web.exchange import Exchange
    from mockserver.webhooks.delivery import DeliveryEngine

CONTEXT = "mockserver.context"  # the scope's one key of ours: the request's RequestContext


@final
class RequestContext:
    """One request as the pipeline and the layers inside it know it.

    Set by the pipeline: `request_id`, `store`, `region` (routed: `us`, `eu`, or None for the
    account's default). Set on the way in: `principal` (rate limiting resolved a valid
    credential), `parsed_body` (the idempotency fingerprint parsed the body: (bytes, object)),
    `operation` (the scope the endpoint required; None until an operation ran), `rule` (the
    scenario rule that answered, for the journal), `explain` (why the request was refused,
    for the journal: see engine.explain), and `exchange`: the pipeline's response
    side, which takes a whole response in one call (`Exchange.respond`).
    """

    __slots__ = (
        "exchange",
        "explain",
        "operation",
        "parsed_body",
        "principal",
        "region",
        "request_id",
        "rule",
        "store",
    )

    def __init__(self, request_id: str, store: Store) -> None:
        self.request_id = request_id
        self.store = store
        self.region: str | None = None
        self.principal: Principal | None = None
        self.parsed_body: tuple[bytes, dict[str, Any]] | None = None
        self.operation: str | None = None
        self.rule: str | None = None
        self.exchange: Exchange | None = None
        self.explain: Refusal | None = None


def context_of(scope: Scope) -> RequestContext | None:
    """The request's context, or None outside the pipeline (a bare router in a test)."""
    context: RequestContext | None = scope.get(CONTEXT)
    return context


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def control_of(request: Request) -> Control:
    """The control facade of the sandbox the app serves."""
    control: Control = request.app.state.control
    return control


def webhooks_of(request: Request) -> DeliveryEngine:
    """The webhook delivery engine of the sandbox the app serves."""
    engine: DeliveryEngine = request.app.state.webhooks
    return engine
