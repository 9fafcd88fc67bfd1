"""The `webhooks` section: what the service POSTs to registered endpoints (docs/reference/api.md,
Webhooks), one entry per event type.

Every delivery is the envelope `{id, type, created_at, data}` signed in `X-Service-Signature`;
`data` is the resource the event is about, shown the way its API call shows it, except for
`signature.completed`, whose data is exactly the spec's four fields.
"""

from __future__ import annotations

from typing import Any

from mockserver.openapi.fields import EMAIL_OUTPUT, TIMESTAMP, Schema, obj, ref
from mockserver.openapi.object_schemas import DOC_ID, EVENT_ID, VAULT_ID, const

# Event types and the schema of their `data` (docs/reference/api.md, Audit log and Webhooks).
DOCUMENT_EVENTS = (
    "document.created",
    "document.in_review",
    "document.signed",
    "document.locked",
    "document.draft",
    "document.deleted",
    "document.legal_hold_placed",
    "document.legal_hold_released",
)
WORKFLOW_EVENTS = (
    "workflow.created",
    "workflow.advanced",
    "workflow.completed",
    "workflow.rejected",
)
EVENT_DATA: dict[str, str] = {
    **dict.fromkeys(DOCUMENT_EVENTS, "Document"),
    **dict.fromkeys(WORKFLOW_EVENTS, "Workflow"),
    "signature.completed": "SignatureCompleted",
    "vault.created": "VaultCreated",
    "audit_export.created": "ExportJob",
    "webhook_endpoint.created": "WebhookEndpoint",
    "webhook_endpoint.deleted": "WebhookEndpoint",
}
EVENT_TYPES = tuple(EVENT_DATA)

SIGNATURE_HELP = (
    "`t=<unix seconds>,v1=<hex>`: hex is the lowercase HMAC-SHA256, keyed with the endpoint's "
    "whole `signing_secret` (`whsec_...`, as UTF-8), of `<t>.<raw body>`. Stripe's libraries "
    "verify it (`stripe.WebhookSignature.verify_header`)."
)


def webhook_schemas() -> dict[str, Schema]:
    """components/schemas of the event envelope and of `signature.completed` data."""
    signature = {
        "document_id": DOC_ID,
        "signer": EMAIL_OUTPUT,
        "ip_verified": {"type": "boolean"},
        "vault_id": VAULT_ID,
    }
    return {
        "SignatureCompleted": obj(signature, list(signature)),
        "Event": obj(
            {
                "id": {**EVENT_ID, "description": "Stable across retries: de-duplicate on it."},
                "type": {"type": "string", "enum": list(EVENT_TYPES)},
                "created_at": TIMESTAMP,
                "data": {"type": "object"},
            },
            ["id", "type", "created_at", "data"],
        ),
    }


def _delivery(event_type: str, data: str) -> dict[str, Any]:
    payload = {
        "allOf": [
            ref("Event"),
            obj({"type": const(event_type), "data": ref(data)}),
        ]
    }
    return {
        "post": {
            "operationId": f"on_{event_type.replace('.', '_')}",
            "summary": f"`{event_type}` delivered to a subscribed endpoint",
            "tags": ["Webhooks"],
            "parameters": [
                {
                    "name": "X-Service-Signature",
                    "in": "header",
                    "required": True,
                    "schema": {"type": "string", "pattern": "^t=[0-9]+,v1=[0-9a-f]{64}$"},
                    "description": SIGNATURE_HELP,
                }
            ],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": payload}},
            },
            "responses": {
                "2XX": {"description": "Received. Answer within 10 s."},
                "default": {
                    "description": "Anything else (or no answer in 10 s) is retried with "
                    "exponential backoff, about 1 minute doubling up to 1 hour, for 24 hours; "
                    "later events to the endpoint wait, so deliveries stay ordered."
                },
            },
        }
    }


def webhooks() -> dict[str, Any]:
    """The `webhooks` object: one delivery per event type."""
    return {event_type: _delivery(event_type, data) for event_type, data in EVENT_DATA.items()}
