"""Regional hosts by name: `us.<anything>` and `eu.<anything>` pin a region like `/us/v1`.

The real service has three hosts; the mock serves them all on one port, by path prefix or by
the `Host` header (`us.localhost:8080`, which curl and many resolvers send to loopback). Both
styles lead to the same routed region, so they answer the same, residency 404s included.

A request can name a region twice, by host and by path. The same region twice is fine. Two
different ones is a URL that exists on no host of the real service (its hosts have no regional
path prefixes, and a resource lives in one region), so it is 404 `not_found`, like any unknown
URL; the path does not silently win.
"""

from __future__ import annotations

from starlette.types import Scope

from mockserver.core.errors import NotFound
from mockserver.web.headers import first_header

REGIONS = ("us", "eu")


def _host(scope: Scope) -> str:
    return (first_header(scope, b"host") or b"").decode("latin-1")


def host_region(scope: Scope) -> str | None:
    """`us` or `eu` when the Host header's first label names a region (port ignored), else None."""
    host = first_header(scope, b"host")
    if host is None or host[2:3] != b".":  # both regions' labels are two letters long
        return None
    label = host[:2].decode("latin-1").lower()
    return label if label in REGIONS else None


def routed_region(scope: Scope, path_region: str | None) -> str | None:
    """The region a request is pinned to by its host and its path prefix, or None (the
    account's default region). Raises NotFound when host and path name different regions."""
    by_host = host_region(scope)
    if by_host is None or path_region is None or by_host == path_region:
        return by_host or path_region
    raise NotFound(
        f"Unrecognized request URL ({scope['method']} /{path_region}{scope['path']}): "
        f"the host {_host(scope)} serves region {by_host}, the path names region {path_region}."
    )
