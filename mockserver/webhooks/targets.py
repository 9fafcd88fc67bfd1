"""Where a delivery attempt may connect: the addresses its URL's host resolves to, none of them
link-local.

An endpoint's URL is checked when it is registered (`domain/webhook_rules.py`), but a host name
can resolve anywhere, and to somewhere else on the next lookup. So each attempt resolves the
host itself, refuses it when any address it gets is link-local (169.254.0.0/16, fe80::/10: the
cloud metadata services), and connects only to the addresses it checked (`delivery.py` sends
to them, the host name kept for `Host` and for TLS). A lookup made again between the check and
the connection, which a name with a short time to live could answer differently, never happens.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable

from mockserver.domain.webhook_rules import is_link_local, link_local

# (host, port) -> the addresses the host resolves to, best first (a socket address's host part).
Resolver = Callable[[str, int], Awaitable[list[str]]]


class Refused(Exception):
    """An attempt that must not connect: the message says why."""


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system's resolver gives for `host`, in its order (OSError when it
    cannot resolve it)."""
    found = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in found:
        address = str(sockaddr[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


async def addresses(host: str, port: int, resolve: Resolver) -> list[str]:
    """The checked addresses an attempt to `host` may connect to, best first: the host itself
    when it is an address, else what `resolve` gives. Refused when one is link-local; OSError
    when the host does not resolve."""
    named = link_local(host)
    if named is not None:
        raise Refused(f"{host} is a link-local address; webhooks are never sent to one")
    literal = _address(host)
    if literal is not None:
        return [host]
    found = await resolve(host, port)
    if not found:
        raise OSError(f"{host} resolves to no address")
    for address in found:
        parsed = _address(address)
        if parsed is not None and is_link_local(parsed):
            raise Refused(
                f"{host} resolves to {address}, a link-local address (where cloud metadata "
                "services answer); webhooks are never sent to one"
            )
    return found


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
