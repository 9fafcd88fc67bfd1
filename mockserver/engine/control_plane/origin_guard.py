"""The browser guard: keeps the web pages a developer visits away from the `/_mock` control
plane when no admin token guards it (the loopback default).

Two attacks come from a browser, not from the network:

- A drive-by request: a page on any site posts to `http://127.0.0.1:8080/_mock/reset` (a form,
  or a `fetch` with a `text/plain` body, needs no CORS preflight). The browser adds `Origin`,
  naming the page's site.
- DNS rebinding: a page's own host name is made to resolve to 127.0.0.1, so the browser takes
  the mock for the page's own site and lets the page read `/_mock/requests`. The request's
  `Host` still names the page's host.

So a control-plane request is refused (403 `permission_error`) when an `Origin` or a `Host`
header names a host that is not loopback: `localhost`, `*.localhost`, 127.0.0.0/8, `::1`.
`Origin: null` (sandboxed frames, local files) and a malformed value count as foreign; a
request without `Origin` (curl, scripts) or without `Host` (HTTP/1.0, or empty) passes.

A browser also says where a request comes from in `Sec-Fetch-Site`, which no page can set, on
requests that carry no `Origin` too (a link followed, a GET form, an image, a frame's first
load): `cross-site` is refused like a foreign `Origin`. The other values pass: `same-origin`
(the inspector's own links, forms and live refresh), `same-site` (a page on another port of
the same loopback host, whose `Origin` passes too) and `none` (an address typed or bookmarked:
the person, not a page). Scripts send no such header and are unaffected.

A host is also trusted when it is the server's own address as the server reports it
(`Request.server`): over a socket, the IP address the connection came in on, which a rebound
name never is; for an in-process client (httpx's ASGITransport), the host of its base URL
(`http://mock`), where no DNS is involved, so in-process clients work whatever their base URL.

Whatever the token, every answer to an inspector URL (`/_mock/ui`: its pages, redirects,
static files, and the envelopes of its errors and of this guard's refusals) forbids framing
(`NO_FRAMING`), so no page can show the inspector inside its own and have a visitor's disguised
click press its buttons (which would send the inspector's own origin and pass every check
above).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from mockserver.core.errors import PermissionDenied
from mockserver.engine.request import HeaderLines, Request

# Both spellings: X-Frame-Options for every browser, the CSP directive that supersedes it.
NO_FRAMING: HeaderLines = [
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
]


def unframeable(headers: HeaderLines) -> HeaderLines:
    """`headers`, then those that forbid showing the answer in a frame."""
    return [*headers, *NO_FRAMING]


_NAME = r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)"  # an IP literal or a reg-name
_HOST = re.compile(rf"(?P<name>{_NAME})(?::[0-9]*)?")
_ORIGIN = re.compile(rf"[A-Za-z][A-Za-z0-9+.-]*://(?P<name>{_NAME})(?::[0-9]*)?")
_SHOWN = 100  # characters of a refused header's value in the message at most


def is_loopback(host: str) -> bool:
    """Whether `host` is `localhost`, a name under `.localhost`, or a loopback address
    (127.0.0.0/8, ::1, or an IPv4 address of 127.0.0.0/8 mapped into IPv6; brackets allowed).
    Any other name may resolve anywhere."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def check(request: Request) -> None:
    """403 `permission_error` when `request` comes from a web page of another host: an
    `Origin` or a `Host` header that names no loopback host (nor the server's own address), or
    a browser's `Sec-Fetch-Site: cross-site`."""
    server = request.server[0].strip("[]").lower() if request.server else None
    for name, value in request.headers:
        if name == b"origin":
            origin = value.decode("latin-1")
            if not _trusted(_ORIGIN.fullmatch(origin), server):
                raise PermissionDenied(
                    "The /_mock control plane refuses requests from web pages "
                    f"(Origin '{origin[:_SHOWN]}'): call it without an Origin header or from a "
                    "loopback origin such as http://localhost:8080, or start the server with "
                    "--admin-token and send X-Mock-Admin-Token.",
                    param="Origin",
                )
        elif name == b"host" and value:
            host = value.decode("latin-1")
            if not _trusted(_HOST.fullmatch(host), server):
                raise PermissionDenied(
                    f"The /_mock control plane refuses Host '{host[:_SHOWN]}' (not a loopback "
                    "name: a web page can make its own host name resolve to this machine): call "
                    "it as localhost or 127.0.0.1, or start the server with --admin-token and "
                    "send X-Mock-Admin-Token.",
                    param="Host",
                )
        elif name == b"sec-fetch-site" and value.strip().lower() == b"cross-site":
            raise PermissionDenied(
                "The /_mock control plane refuses requests from web pages of another site "
                f"(Sec-Fetch-Site '{value.decode('latin-1')[:_SHOWN]}'): open it at its own "
                "address or call it from a script, or start the server with --admin-token and "
                "send X-Mock-Admin-Token.",
                param="Sec-Fetch-Site",
            )


def _trusted(found: re.Match[str] | None, server: str | None) -> bool:
    """Whether a parsed Host or Origin names a loopback host or the server's own address."""
    if found is None:
        return False  # malformed, or `Origin: null`
    name = found["name"]
    return is_loopback(name) or (bool(server) and name.strip("[]").lower() == server)


def browser_guard(admin_token: str | None) -> Callable[[Request], None] | None:
    """The check the guard middleware makes of every `/_mock` request (inspector pages, unknown
    paths included) before its body is read: this browser guard when no admin token is set (an
    empty one guards nothing), none with a token (the token is the guard, which every route of
    the control plane checks: `web/control.py`)."""
    return None if admin_token else check
