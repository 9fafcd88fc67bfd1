"""The OpenAPI links: which answer feeds which next request, so that a client generator or a
stateful fuzzer can walk from a create to the reads, decisions, deletes and downloads of what
it created, and from a page to the next one.

Every link takes values from the answer it hangs on (`$response.body#/...`); the link that
starts a workflow gives its steps too (`_start_approval`). The download
link reads `expires` and `signature` out of the job's `download_url` with a `#regex:`
extractor (an extension schemathesis understands; to other readers it is a JSON pointer that
resolves to nothing).
`attach_links` puts each operation's links on its success answer.
"""

from __future__ import annotations

from typing import Any

Link = dict[str, Any]

BY_ID = "$response.body#/id"
NEXT_CURSOR = "$response.body#/next_cursor"
DOWNLOAD_URL = "$response.body#/download_url"
REVIEWER = "ana@example.com"  # the example assignee of the document's schemas


def _to(op_id: str, description: str, **parameters: str) -> Link:
    """A link to `op_id` filling its parameters (path or query) from the answer."""
    return {"operationId": op_id, "parameters": parameters, "description": description}


def _into_body(op_id: str, field: str, description: str) -> Link:
    """A link to an operation whose body names the answer's resource in `field` (the rest of
    the body is the caller's)."""
    return {"operationId": op_id, "requestBody": {field: BY_ID}, "description": description}


def _start_approval() -> Link:
    """The link from a new document to a workflow on it, with the whole body: one step, with no
    condition. A condition must parse, which no schema can state, so generated steps are
    nearly always refused (422) and a fuzzer following a link that gave only `document_id`
    never created a workflow, nor reached the workflow's read and decisions. The body is the
    request's whole body, not fields to merge into a generated one (schemathesis merges unless
    told, and kept the generated steps beyond the link's one)."""
    body = {"document_id": BY_ID, "steps": [{"assignee": REVIEWER}]}
    return {
        "operationId": "createWorkflow",
        "requestBody": body,
        "description": "Start its approval: one step, assigned to a reviewer.",
        "x-schemathesis": {"merge_body": False},
    }


def _query_value(name: str) -> str:
    """The value of query parameter `name` in the job's `download_url`."""
    return f"{DOWNLOAD_URL}#regex:[?&]{name}=([^&]+)"


def _next_page(op_id: str) -> Link:
    return _to(op_id, "The next page (while `next_cursor` is not null).", cursor=NEXT_CURSOR)


# operationId -> the links of its success answer
LINKS: dict[str, dict[str, Link]] = {
    "createVault": {
        "getVault": _to("getVault", "Read the new vault.", vault_id=BY_ID),
        "createDocument": _into_body("createDocument", "vault_id", "Create a document in it."),
        "listDocuments": _to("listDocuments", "List its documents.", vault_id=BY_ID),
        "listAuditEvents": _to("listAuditEvents", "Its audit trail.", resource_id=BY_ID),
    },
    "createDocument": {
        "getDocument": _to("getDocument", "Read the new document.", doc_id=BY_ID),
        "deleteDocument": _to("deleteDocument", "Delete it.", doc_id=BY_ID),
        "createWorkflow": _start_approval(),
        "listAuditEvents": _to("listAuditEvents", "Its audit trail.", resource_id=BY_ID),
    },
    "getDocument": {
        "deleteDocument": _to("deleteDocument", "Delete it.", doc_id=BY_ID),
    },
    "deleteDocument": {
        "getDocument": _to("getDocument", "Read it again: 404 once deleted.", doc_id=BY_ID),
    },
    "createWorkflow": {
        "getWorkflow": _to("getWorkflow", "Read the new workflow.", workflow_id=BY_ID),
        "advanceWorkflow": _to("advanceWorkflow", "Decide its first step.", workflow_id=BY_ID),
    },
    "advanceWorkflow": {
        "getWorkflow": _to("getWorkflow", "Read it after the decision.", workflow_id=BY_ID),
        "advanceWorkflow": _to(
            "advanceWorkflow", "Decide the next step (409 once it is over).", workflow_id=BY_ID
        ),
    },
    "listDocuments": {"listDocuments": _next_page("listDocuments")},
    "listAuditEvents": {"listAuditEvents": _next_page("listAuditEvents")},
    "createAuditExport": {
        "getAuditExport": _to("getAuditExport", "Poll the job.", export_id=BY_ID),
    },
    "getAuditExport": {
        "downloadAuditExport": _to(
            "downloadAuditExport",
            "Download the CSV through the job's `download_url` (once `completed`).",
            export_id=BY_ID,
            expires=_query_value("expires"),
            signature=_query_value("signature"),
        ),
    },
    "createWebhookEndpoint": {
        "deleteWebhookEndpoint": _to(
            "deleteWebhookEndpoint", "Delete the new endpoint.", webhook_id=BY_ID
        ),
    },
}


def attach_links(paths: dict[str, dict[str, dict[str, Any]]]) -> None:
    """Put each operation's links on its success answer."""
    for item in paths.values():
        for operation in item.values():
            links = LINKS.get(operation["operationId"])
            if links is None:
                continue
            (status,) = (s for s in operation["responses"] if s.startswith("2"))
            operation["responses"][status]["links"] = links
