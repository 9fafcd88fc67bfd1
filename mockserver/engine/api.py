"""The API of a sandbox: its operations, and how a typed request becomes a typed answer.

`Api.operations` is the one table of `/v1`: method, path template, the permission each needs,
the body it reads and the function that runs it. `serve` takes a request through it in the order
the real service checks: `authorize` (the credential and the permission: 401, 403), `admit`
(the query's form, the caller's world and routed region: 422), all before any body is read;
then the body it takes, and `run` (the operation itself, on the mock clock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mockserver.core.errors import ApiError, ValidationError
from mockserver.domain.auth import Principal, require_scope
from mockserver.domain.store import Store
from mockserver.engine.answers import answer_response
from mockserver.engine.calls import JSON, Answer, Call, Operation, principal_for
from mockserver.engine.operations import lifecycle, oauth, resources, webhook_endpoints
from mockserver.engine.reading import (
    MAX_BODY,
    check_form_head,
    check_json_head,
    parse_form,
    parse_json_object,
    query_pairs,
)
from mockserver.engine.request import Response
from mockserver.engine.request_state import RequestState
from mockserver.webhooks.delivery import DeliveryEngine

NO_QUERY: dict[str, str] = {}  # what a request without a query string reads (never written)


def refuse_repeated(query: dict[str, str], pairs: list[tuple[str, str]]) -> None:
    """422 naming the first query parameter given more than once (`pairs`: the query's pairs in
    order, repeats included): the mock never silently picks one of two values."""
    if len(pairs) == len(query):
        return
    seen: set[str] = set()
    for name, _ in pairs:
        if name in seen:
            raise ValidationError(f"Query parameter '{name}' was given more than once.", param=name)
        seen.add(name)


class Api:
    """The `/v1` operations of one sandbox (its store and webhook engine)."""

    __slots__ = ("_by_run", "_openapi", "operations", "store", "webhooks")

    def __init__(self, store: Store, webhooks: DeliveryEngine) -> None:
        self.store = store
        self.webhooks = webhooks
        self._openapi: bytes | None = None
        oauth_error = oauth.as_oauth_error
        self.operations: tuple[Operation, ...] = (
            Operation("GET", "/v1/whoami", "", "", resources.whoami),
            Operation("GET", "/v1/oauth/authorize", None, "", oauth.authorize, oauth_error),
            Operation("POST", "/v1/oauth/token", None, "form", oauth.token, oauth_error),
            Operation("GET", "/v1/vaults", "vaults:read", "", resources.list_vaults),
            Operation("POST", "/v1/vaults", "vaults:write", "json", resources.create_vault),
            Operation("GET", "/v1/vaults/{vault_id}", "vaults:read", "", resources.get_vault),
            Operation("GET", "/v1/documents", "documents:read", "", resources.list_documents),
            Operation(
                "POST", "/v1/documents", "documents:write", "json", resources.create_document
            ),
            Operation(
                "GET", "/v1/documents/{doc_id}", "documents:read", "", resources.get_document
            ),
            Operation(
                "DELETE", "/v1/documents/{doc_id}", "documents:write", "", resources.delete_document
            ),
            Operation(
                "POST", "/v1/workflows", "workflows:write", "json", lifecycle.create_workflow
            ),
            Operation(
                "GET", "/v1/workflows/{workflow_id}", "workflows:read", "", lifecycle.get_workflow
            ),
            Operation(
                "POST",
                "/v1/workflows/{workflow_id}/advance",
                "workflows:write",
                "json",
                lifecycle.advance_workflow,
            ),
            Operation("GET", "/v1/audit_logs", "audit:read", "", lifecycle.list_audit_logs),
            Operation(
                "POST", "/v1/audit_logs/export", "audit:read", "json", lifecycle.create_export
            ),
            Operation(
                "GET", "/v1/audit_logs/export/{export_id}", "audit:read", "", lifecycle.get_export
            ),
            Operation(
                "GET",
                "/v1/audit_logs/export/{export_id}/download",
                None,
                "",
                lifecycle.download_export,
            ),
            Operation(
                "GET",
                "/v1/webhook_endpoints",
                "webhooks:read",
                "",
                webhook_endpoints.list_endpoints,
            ),
            Operation(
                "POST",
                "/v1/webhook_endpoints",
                "webhooks:write",
                "json",
                webhook_endpoints.create_endpoint,
            ),
            Operation(
                "DELETE",
                "/v1/webhook_endpoints/{endpoint_id}",
                "webhooks:write",
                "",
                webhook_endpoints.delete_endpoint,
            ),
            Operation("GET", "/v1/openapi.json", None, "", self.openapi_document),
        )

        # By the function that runs it: how an endpoint names its operation.
        self._by_run = {self.key(operation.run): operation for operation in self.operations}

    @staticmethod
    def key(run: Callable[..., Answer]) -> Callable[..., Answer]:
        """What names an operation: its function (a bound method's function)."""
        function: Callable[..., Answer] = getattr(run, "__func__", run)
        return function

    def operation_of(self, run: Callable[..., Answer]) -> Operation:
        """The operation `run` runs (KeyError for none)."""
        return self._by_run[self.key(run)]

    def authorize(
        self, operation: Operation, authorization: str | None, principal: Principal | None
    ) -> Principal | None:
        """The caller of `operation`, or the 401 or 403 that refuses it (None: the operation
        takes no bearer credential and authenticates itself). `principal`: the caller as the
        traffic layer already resolved it from `authorization` (None: resolve it here, raising
        the 401 that says why)."""
        if operation.scope is None:
            return None
        if principal is None:
            principal = principal_for(self.store, authorization)
        require_scope(principal, operation.scope or None)
        return principal

    def admit(
        self,
        principal: Principal | None,
        region: str | None,
        params: dict[str, str],
        query: dict[str, str],
        pairs: list[tuple[str, str]],
        base_url: Callable[[], str],
        authorization: str | None,
    ) -> Call:
        """The call of an authorized caller (`authorize`), or the 422 of a repeated query
        parameter. `region`: the routed one (None: the caller's default); `query`: one value
        per name, `pairs`: every (name, value) in order (empty for an empty query)."""
        store = self.store
        if principal is None:  # no bearer credential: the operation authenticates itself
            return Call(
                store, self.webhooks, None, None, "", params, query, pairs, base_url, authorization
            )
        if pairs:
            refuse_repeated(query, pairs)
        world = store.world(principal.account_id, principal.environment)
        return Call(
            store,
            self.webhooks,
            principal,
            world,
            region or world.account.default_region,
            params,
            query,
            pairs,
            base_url,
            authorization,
        )

    async def serve(
        self, operation: Operation, state: RequestState, params: dict[str, Any]
    ) -> Answer:
        """The operation's answer to the request, or the ApiError that refuses it: the caller
        (the one the traffic rules resolved, or the one `Authorization` value they read), the
        call, the body it takes, then the operation. Records in the request state that an operation
        admitted the caller, with the permission it required, for idempotent replays."""
        request = state.request
        known = state.principal
        raw = state.authorization
        authorization = raw.decode("latin-1") if known is None and raw is not None else None
        principal = self.authorize(operation, authorization, known)
        if principal is not None:
            state.operation = operation.scope
        if request.query:
            pairs = query_pairs(request.query)
            query: dict[str, str] = dict(pairs)  # the last value of a name
        else:
            query, pairs = NO_QUERY, []
        call = self.admit(
            principal, state.region, params, query, pairs, request.base_url, authorization
        )
        try:
            if operation.body == "json":
                call.body = await _json_body(state)
            elif operation.body == "form":
                check_form_head(request.headers, MAX_BODY)
                call.body = parse_form(await state.body(MAX_BODY), MAX_BODY)
            return self.run(operation, call)
        except ApiError as error:
            if operation.refusal is None:
                raise
            raise operation.refusal(error) from None

    def operation(self, method: str, path: str) -> Operation:
        """The operation of `method` on the path template `path` (`/v1/documents/{doc_id}`),
        for callers that drive the engine without HTTP."""
        for operation in self.operations:
            if operation.method == method and operation.path == path:
                return operation
        raise KeyError(f"{method} {path}")

    @staticmethod
    def run(operation: Operation, call: Call) -> Answer:
        """The operation's answer, or the ApiError that refuses it."""
        return operation.run(call)

    def openapi_document(self, call: Call) -> Answer:
        """`GET /v1/openapi.json`: the OpenAPI document of this sandbox, built once, on first
        request, for the store's field limits (the seed may change them), so it is the same
        bytes `mockserver openapi` prints for the same seed."""
        if self._openapi is None:
            # Imported here: the document's builder is needed by the first request for it only.
            from mockserver.openapi import document_bytes

            self._openapi = document_bytes(self.store.limits)
        return Answer(self._openapi, media_type=JSON)


class _OperationHandler:
    """Serves one operation as a route's handler."""

    __slots__ = ("api", "operation")

    def __init__(self, api: Api, operation: Operation) -> None:
        self.api = api
        self.operation = operation

    async def serve(self, state: RequestState, params: dict[str, Any]) -> Response:
        return answer_response(await self.api.serve(self.operation, state, params))


async def _json_body(state: RequestState) -> dict[str, Any]:
    """The body as a JSON object (the object the idempotency fingerprint parsed from these
    very bytes, when it did)."""
    check_json_head(state.request.headers, MAX_BODY, any_content_type=False)
    raw = await state.body(MAX_BODY)
    kept = state.parsed_body
    if kept is not None and kept[0] == raw and len(raw) <= MAX_BODY:
        return kept[1]
    return parse_json_object(raw, MAX_BODY)
