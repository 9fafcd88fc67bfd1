"""What a webhook endpoint may be: the event types it subscribes to, the URL it is sent to, and
how many an (account, environment) has. The API (`webhooks/endpoints.py`) and seed files
(`seeds/validation.py`) refuse the same things, each in its own words.
"""

from __future__ import annotations

from urllib.parse import urlsplit

EVENT_TYPES = (
    "vault.created",
    "document.created",
    "document.in_review",
    "document.signed",
    "document.locked",
    "document.draft",
    "document.deleted",
    "document.legal_hold_placed",
    "document.legal_hold_released",
    "workflow.created",
    "workflow.advanced",
    "workflow.completed",
    "workflow.rejected",
    "signature.completed",
    "audit_export.created",
    "webhook_endpoint.created",
    "webhook_endpoint.deleted",
)
WILDCARD = "*"
SECRET_PREFIX = "whsec_"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
URL_MAX = 2048
EVENTS_MAX = 100  # entries of `events` looked at, duplicates included
ENDPOINTS_MAX = 16  # per account and environment


def url_problem(url: str, *, strict: bool) -> str | None:
    """Why `url` cannot receive deliveries, as a clause that follows "must be an absolute
    https:// URL" ("" when nothing more is to be said), or None when it can: https, or http to
    a loopback host unless `strict`; no whitespace, control character or fragment."""
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return "it contains whitespace or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises ValueError for a bad port
    except ValueError as error:
        return str(error)
    host = (parts.hostname or "").lower()
    if not host or parts.scheme.lower() not in ("https", "http"):
        return ""
    if parts.scheme.lower() == "http":
        if host not in LOOPBACK_HOSTS:
            return "plain http:// is accepted only for loopback hosts (127.0.0.1, localhost, [::1])"
        if strict:
            return "this server was started with --strict-webhook-urls"
    if parts.fragment:
        return "a URL fragment is never sent, drop it"
    return None
