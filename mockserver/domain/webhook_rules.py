"""What a webhook endpoint may be: the event types it subscribes to, the URL it is sent to, and
how many an (account, environment) has. The API (`webhooks/endpoints.py`) and seed files
(`seeds/validation.py`) refuse the same things, each in its own words.

A URL that names a link-local address (169.254.0.0/16, fe80::/10: where cloud metadata
services answer) is refused whatever its scheme, so that a server shared in a network is no
way into it; a host name that resolves to one is refused when a delivery is sent
(`webhooks/targets.py`), since a name can resolve anywhere.
"""

from __future__ import annotations

import ipaddress
import socket
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
    address = link_local(host)
    if address is not None:
        return (
            f"it names {address}, a link-local address (169.254.0.0/16, fe80::/10, where cloud "
            "metadata services answer), and webhooks are never sent to one"
        )
    if parts.scheme.lower() == "http":
        if host not in LOOPBACK_HOSTS:
            return "plain http:// is accepted only for loopback hosts (127.0.0.1, localhost, [::1])"
        if strict:
            return "this server was started with --strict-webhook-urls"
    if parts.fragment:
        return "a URL fragment is never sent, drop it"
    return None


def link_local(host: str) -> str | None:
    """The address `host` spells when it is a link-local one, else None: an IPv4 address in
    any form the system resolver reads as one (`169.254.169.254`, `2852039166`, `0xa9fea9fe`),
    an IPv6 address (brackets and a zone allowed), or an IPv4 one mapped into IPv6. A name is
    not looked up here."""
    name = host.strip("[]").split("%", 1)[0]
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(name)
    except ValueError:
        try:  # the legacy forms `inet_aton` (and so the resolver) takes as an address
            address = ipaddress.IPv4Address(socket.inet_aton(name))
        except (OSError, ValueError):
            return None
    return str(address) if is_link_local(address) else None


def is_link_local(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `address` is link-local, or an IPv4 link-local address mapped into IPv6."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_link_local
    return address.is_link_local
