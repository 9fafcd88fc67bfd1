"""What the mock enforces that JSON Schema cannot say: routing, grammars, state, what exists.

The schemas hold every rule that fits a schema (lengths, patterns, the period's real dates,
the cursor's form, a condition's characters). The rest is written here, once, and added to
the description of the operation it applies to, so a client generated from the document (or
a fuzzer reading it) is told that a schema-valid request can still be refused, and why.
"""

from __future__ import annotations

from typing import Any

from mockserver.domain.webhook_rules import ENDPOINTS_MAX

ISSUED_CURSOR = (
    "`cursor` must be a `next_cursor` this server issued for the same list; a well-formed "
    "cursor it did not issue is 422 `param: cursor`."
)

# operationId -> the rules of that operation a schema cannot state
RULES: dict[str, str] = {
    "createVault": "`region` must be the region the request is routed to (the account's "
    "default one through `/v1`); any other is 422 `param: region`. Create a vault of "
    "another region through that region's base URL.",
    "createDocument": "`vault_id` must name a vault of the routed region: any other is 404 "
    "`param: vault_id`.",
    "listDocuments": f"{ISSUED_CURSOR} `vault_id`, when given, must name a vault of the "
    "routed region (404 otherwise).",
    "deleteDocument": "A document under legal hold, or signed and under retention, is 409.",
    "createWorkflow": "`document_id` must name a `draft` document of the routed region "
    "without an in-progress workflow (404 if unknown, 409 otherwise). Each step's "
    "`condition` must parse by the condition grammar (422 `steps[N].condition`); its "
    "characters are already held by the schema.",
    "advanceWorkflow": "The workflow must be `in_progress` and its document not deleted; "
    "otherwise 409.",
    "listAuditEvents": ISSUED_CURSOR,
    "createAuditExport": "The period's start must not be after its end (422 `param: "
    "period`); the schema already holds that both are real dates.",
    "createWebhookEndpoint": f"An account has at most {ENDPOINTS_MAX} endpoints per "
    "environment; one more is 409.",
    "oauthToken": "The client must be registered: an unknown client, or a wrong secret, is "
    "401 `invalid_client`.",
}


def attach_rules(paths: dict[str, dict[str, dict[str, Any]]]) -> None:
    """Add each operation's rules to its description."""
    for item in paths.values():
        for operation in item.values():
            rules = RULES.get(operation["operationId"])
            if rules is None:
                continue
            before = operation.get("description")
            operation["description"] = f"{before}\n\n{rules}" if before else rules
