"""The API of a sandbox: its operations, and how a typed request becomes a typed answer.

`Api.operations` is the one table of `/v1`: method, path template, the permission each needs,
the body it reads and the function that runs it. A request goes through it in two steps, in the
order the real service checks them, all before any body is read: `authorize` (the credential
and the permission: 401, 403), `admit` (the query's form, the caller's world and routed region:
422); then, once the web layer has read and parsed the body, `run` (the operation itself, on
the mock clock).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mockserver.core.errors import ValidationError
from mockserver.domain.auth import Principal, require_scope
from mockserver.domain.store import Store
from mockserver.engine.calls import JSON, Answer, Call, Operation, principal_for
from mockserver.engine.operations import lifecycle, oauth, resources, webhook_endpoints
from mockserver.openapi import document_bytes
from mockserver.webhooks.delivery import DeliveryEngine


def refuse_repeated(query: Mapping[str, str], pairs: list[tuple[str, str]]) -> None:
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

    __slots__ = ("_openapi", "operations", "store", "webhooks")

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
        query: Mapping[str, str],
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
            self._openapi = document_bytes(self.store.limits)
        return Answer(self._openapi, media_type=JSON)
