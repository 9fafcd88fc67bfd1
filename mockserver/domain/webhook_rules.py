"""What a webhook endpoint may be: the event types it subscribes to, the URL it is sent to, and
how many an (account, environment) has. The API (`webhooks/endpoints.py`) and seed files
(`seeds/validation.py`) refuse the same things, each in its own words.

A URL that names a link-local address (169.254.0.0/16, fe80::/10: where cloud metadata
services answer) is refused whatever its scheme, so that a server shared in a network is no
way into it; a host name that resolves to one is refused when a delivery is sent
(`webhooks/targets.py`), since a name can resolve anywhere. A URL is normalised before it is
checked (`normal_url`), so that the host checked is the one a delivery connects to: fullwidth
digits and dots, or an internationalised name, become the ASCII name a resolver reads.
"""

from __future__ import annotations

import ipaddress
import socket
import unicodedata
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
# Characters that end a host in a URL: a host that normalises to one of them is no host.
_HOST_ENDS = frozenset("/?#@\\")


def normal_url(url: str) -> str:
    """`url` with its host as a resolver reads it: NFKC-normalised, IDNA-encoded (ASCII, with
    `xn--` labels) and lowercased, its port in ASCII digits; the rest is kept as given. A URL
    whose host and port are ASCII already is returned as it is, and so is one whose host cannot
    be normalised (`url_problem` then says why)."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return url
    if netloc.isascii():
        return url
    userinfo, at, hostport = netloc.rpartition("@")
    hostport = unicodedata.normalize("NFKC", hostport)
    if any(c in _HOST_ENDS for c in hostport):
        return url
    if hostport.startswith("["):  # an IPv6 address: NFKC makes its digits ASCII
        address, _, rest = hostport.partition("]")
        host, colon, port = f"{address}]".lower(), rest[:1], rest[1:]
    else:
        host, colon, port = hostport.partition(":")
        try:
            host = host.encode("idna").decode("ascii").lower()
        except UnicodeError:
            return url
    start = url.index(netloc)
    return f"{url[:start]}{userinfo}{at}{host}{colon}{port}{url[start + len(netloc) :]}"


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
    if not _is_host(host):
        return (
            f"its host '{host[:100]}' is no valid host name (an empty label, one over 63 "
            "characters, or characters no host name has)"
        )
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


def _is_host(host: str) -> bool:
    """Whether `host` (as `urlsplit` gives it: lowercased, without brackets) is an address or
    an ASCII name whose labels a resolver takes."""
    if ":" in host:  # an IPv6 address, checked as one by whoever connects
        return host.isascii()
    if not host.isascii() or any(c in _HOST_ENDS or c == "%" for c in host):
        return False
    try:
        host.encode("idna")
    except UnicodeError:
        return False
    return True


def link_local(host: str) -> str | None:
    """The address `host` spells when it is a link-local one, else None: an IPv4 address in
    any form the system resolver reads as one (`169.254.169.254`, `2852039166`, `0xa9fea9fe`),
    an IPv6 address (brackets and a zone allowed), or an IPv4 one mapped into IPv6. A name is
    not looked up here."""
    name = host.strip("[]").split("%", 1)[0].removesuffix(".")
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
