"""The credentialed operations under `/v1`: the API's endpoints and the export polling and
download the mock adds (docs/reference/endpoints.md); `keyless.py` has the rest. `paths()`
assembles both.

Paths are relative to the servers (`/v1`, `/us/v1`, `/eu/v1`). Path parameters carry the
names the routes use. Each operation names the scope it needs (docs/getting-started, The
keys) in its security requirement, for API keys and OAuth tokens alike, and a JSON body makes
it accept an `Idempotency-Key` (docs/reference/api.md, Idempotency).
"""

from __future__ import annotations

from typing import Any

from mockserver.openapi.fields import ref
from mockserver.openapi.keyless import keyless_paths
from mockserver.openapi.links import attach_links
from mockserver.openapi.object_schemas import DOC_ID, EXPORT_ID, VAULT_ID, WEBHOOK_ID, WORKFLOW_ID
from mockserver.openapi.requests import AUDIT_FILTERS, DOCUMENT_FILTERS, path_param
from mockserver.openapi.responses import errors, header, json_content, success
from mockserver.openapi.rules import attach_rules

Operation = dict[str, Any]

READ = (401, 403, 404, 429, 500)
LIST = (401, 403, 404, 422, 429, 500)
WRITE = (400, 401, 403, 404, 409, 413, 422, 429, 500)
DELETE = (401, 403, 404, 409, 429, 500)
PARAMS = "#/components/parameters/"


def security(scope: str | None) -> list[dict[str, list[str]]]:
    """An API key or an OAuth access token, holding `scope` (None: any valid credential)."""
    scopes = [scope] if scope else []
    return [{"apiKey": scopes}, {"oauth2": scopes}]


def operation(
    op_id: str,
    summary: str,
    tag: str,
    *,
    scope: str | None,
    responses: dict[str, Any],
    parameters: list[dict[str, Any]] | None = None,
    body: str | None = None,
    description: str | None = None,
) -> Operation:
    """A credentialed operation; a body makes it a JSON POST with an `Idempotency-Key`."""
    op: Operation = {
        "operationId": op_id,
        "summary": summary,
        "tags": [tag],
        "security": security(scope),
        "responses": responses,
    }
    if description:
        op["description"] = description
    params = list(parameters or [])
    if body is not None:
        params.append({"$ref": PARAMS + "Idempotency-Key"})
        op["requestBody"] = {"required": True, "content": json_content(ref(body))}
    if params:
        op["parameters"] = params
    return op


def created(status: int, what: str, schema: str) -> dict[str, Any]:
    replayed = {"Idempotent-Replayed": header("Idempotent-Replayed")}
    return {str(status): success(status, what, ref(schema), headers=replayed)}


def ok(schema: str, what: str) -> dict[str, Any]:
    return {"200": success(200, what, ref(schema))}


def _core() -> dict[str, dict[str, Operation]]:
    vault = [path_param("vault_id", {**VAULT_ID, "examples": ["vault_mock_us"]})]
    doc = [path_param("doc_id", {**DOC_ID, "examples": ["doc_mock_draft"]})]
    return {
        "/whoami": {
            "get": operation(
                "whoami",
                "Which account, region, environment and scopes the credential maps to",
                "Identity",
                scope=None,
                responses=ok("Identity", "The identity record.") | errors(401, 404, 429, 500),
            )
        },
        "/vaults": {
            "get": operation(
                "listVaults",
                "List the routed region's vaults, newest first (not paginated)",
                "Vaults",
                scope="vaults:read",
                responses=ok("VaultList", "Vaults, `members` as a count.") | errors(*READ),
            ),
            "post": operation(
                "createVault",
                "Create a vault in the routed region",
                "Vaults",
                scope="vaults:write",
                body="VaultCreate",
                responses=created(
                    201,
                    "The vault.",
                    "VaultCreated",
                )
                | errors(*WRITE),
            ),
        },
        "/vaults/{vault_id}": {
            "get": operation(
                "getVault",
                "Retrieve a vault with its members and document count",
                "Vaults",
                scope="vaults:read",
                parameters=vault,
                responses=ok("Vault", "The vault.") | errors(*READ),
            )
        },
        "/documents": {
            "get": operation(
                "listDocuments",
                "List documents newest first, by cursor",
                "Documents",
                scope="documents:read",
                parameters=[
                    *DOCUMENT_FILTERS,
                    {"$ref": PARAMS + "limit"},
                    {"$ref": PARAMS + "cursor"},
                ],
                responses=ok("DocumentList", "A page of documents.") | errors(*LIST),
            ),
            "post": operation(
                "createDocument",
                "Create a draft document, version 1, in a vault of the routed region",
                "Documents",
                scope="documents:write",
                body="DocumentCreate",
                responses=created(
                    201,
                    "The new draft.",
                    "DocumentCreated",
                )
                | errors(*WRITE),
            ),
        },
        "/documents/{doc_id}": {
            "get": operation(
                "getDocument",
                "Retrieve a document with its signers and version history",
                "Documents",
                scope="documents:read",
                parameters=doc,
                responses=ok("Document", "The document.") | errors(*READ),
            ),
            "delete": operation(
                "deleteDocument",
                "Soft-delete a document (409 under legal hold or retention)",
                "Documents",
                scope="documents:write",
                parameters=doc,
                responses=ok("Deleted", "`{id, object, deleted: true}`.") | errors(*DELETE),
            ),
        },
    }


def _lifecycle() -> dict[str, dict[str, Operation]]:
    workflow = [path_param("workflow_id", WORKFLOW_ID)]
    export = [path_param("export_id", EXPORT_ID)]
    return {
        "/workflows": {
            "post": operation(
                "createWorkflow",
                "Start approval of a draft document (it moves to in_review)",
                "Workflows",
                scope="workflows:write",
                body="WorkflowCreate",
                responses=created(
                    201,
                    "The workflow, `in_progress` at step 1.",
                    "WorkflowCreated",
                )
                | errors(*WRITE),
            )
        },
        "/workflows/{workflow_id}": {
            "get": operation(
                "getWorkflow",
                "Retrieve a workflow with every step's decision",
                "Workflows",
                scope="workflows:read",
                parameters=workflow,
                responses=ok("Workflow", "The workflow.") | errors(*READ),
            )
        },
        "/workflows/{workflow_id}/advance": {
            "post": operation(
                "advanceWorkflow",
                "Decide the current step: approve moves on (or completes), reject halts",
                "Workflows",
                scope="workflows:write",
                parameters=workflow,
                body="WorkflowAdvance",
                responses=ok("WorkflowAdvanced", "The workflow after the decision.")
                | errors(*WRITE),
            )
        },
        "/audit_logs": {
            "get": operation(
                "listAuditEvents",
                "List the routed region's audit events, newest first, by cursor",
                "Audit",
                scope="audit:read",
                parameters=[
                    *AUDIT_FILTERS,
                    {"$ref": PARAMS + "limit"},
                    {"$ref": PARAMS + "cursor"},
                ],
                responses=ok("AuditEventList", "A page of events.") | errors(*LIST),
            )
        },
        "/audit_logs/export": {
            "post": operation(
                "createAuditExport",
                "Export the routed region's audit chain for a period, as CSV",
                "Audit",
                scope="audit:read",
                body="ExportCreate",
                responses=created(
                    202,
                    "The job, `processing`; poll it.",
                    "ExportJob",
                )
                | errors(*WRITE),
            )
        },
        "/audit_logs/export/{export_id}": {
            "get": operation(
                "getAuditExport",
                "Poll an export job: `completed` with a pre-signed `download_url` when ready",
                "Audit",
                scope="audit:read",
                parameters=export,
                responses=ok("ExportJob", "The job.") | errors(*READ),
            )
        },
    }


def _webhook_endpoints() -> dict[str, dict[str, Operation]]:
    return {
        "/webhook_endpoints": {
            "get": operation(
                "listWebhookEndpoints",
                "List the account's webhook endpoints",
                "Webhooks",
                scope="webhooks:read",
                responses=ok("WebhookEndpointList", "The endpoints.") | errors(*READ),
            ),
            "post": operation(
                "createWebhookEndpoint",
                "Register an HTTPS receiver of signed events",
                "Webhooks",
                scope="webhooks:write",
                body="WebhookEndpointCreate",
                responses=created(
                    201,
                    "The endpoint, with its `signing_secret` (shown only here).",
                    "WebhookEndpointCreated",
                )
                | errors(*WRITE),
            ),
        },
        "/webhook_endpoints/{webhook_id}": {
            "delete": operation(
                "deleteWebhookEndpoint",
                "Delete an endpoint: no new events; deliveries in flight finish",
                "Webhooks",
                scope="webhooks:write",
                parameters=[path_param("webhook_id", WEBHOOK_ID)],
                responses=ok("Deleted", "`{id, object, deleted: true}`.") | errors(*READ),
            )
        },
    }


def paths() -> dict[str, dict[str, Operation]]:
    """The `paths` object: every operation the mock serves under /v1, with its links."""
    every = {**_core(), **_lifecycle(), **_webhook_endpoints(), **keyless_paths()}
    attach_links(every)
    attach_rules(every)
    return every
