"""The browser guard's reading of `Origin` and `Host`: which hosts count as loopback, what is
malformed, and the server's own address (an in-process client's base URL)."""

from __future__ import annotations

import asyncio

import pytest

from mockserver.core.config import Settings
from mockserver.core.errors import PermissionDenied
from mockserver.engine.control_plane.origin_guard import check
from mockserver.engine.request import Request
from mockserver.web.sandbox import Sandbox

SOCKET = ("127.0.0.1", 8080)  # what uvicorn reports: the address the socket is bound to


def passes(
    headers: list[tuple[bytes, bytes]], server: tuple[str, int | None] | None = SOCKET
) -> bool:
    try:
        check(Request("GET", "/_mock/requests", headers=headers, server=server))
    except PermissionDenied:
        return False
    return True


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (b"http://localhost:8080", True),
        (b"http://LocalHost", True),
        (b"https://localhost", True),
        (b"http://app.localhost:3000", True),
        (b"http://127.0.0.1:8080", True),
        (b"http://127.255.0.9", True),
        (b"http://[::1]:8080", True),
        (b"http://[::ffff:127.0.0.1]:8080", True),
        (b"https://evil.example", False),
        (b"http://evil.example:8080", False),
        (b"null", False),
        (b"", False),
        (b"http://", False),
        (b"localhost", False),  # no scheme: not an origin
        (b"http://localhost:8080/", False),  # browsers never send a path
        (b"http://127.0.0.1@evil.example", False),
        (b"http://localhost.evil.example", False),
        (b"http://evil.example#.localhost", False),
        (b"http://127.1", False),  # not an address a browser would send
        (b"http://0.0.0.0:8080", False),
        (b"http://10.0.0.5:8080", False),
        (b"http://[::]:8080", False),
        (b"http://[fe80::1%25eth0]", False),
        (b"chrome-extension://abcdef", False),
        (b"http://loc\xe4lhost", False),
        (b"http://localhost\x00.evil", False),
    ],
)
def test_which_origins_pass(origin: bytes, allowed: bool) -> None:
    assert passes([(b"origin", origin)]) is allowed


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        (b"localhost", True),
        (b"localhost:8080", True),
        (b"localhost:", True),
        (b"us.localhost:8080", True),
        (b"127.0.0.1:8080", True),
        (b"127.0.0.2", True),
        (b"[::1]:8080", True),
        (b"[::1]", True),
        (b"", True),  # no host named: nothing a page could have rebound
        (b"evil.example", False),
        (b"evil.example:8080", False),
        (b"10.0.0.5:8080", False),
        (b"192.168.1.20", False),
        (b"localtest.me", False),  # a public name resolving to 127.0.0.1: rebinding's shape
        (b"mock", False),  # over a socket, only loopback names
        (b"::1", False),  # an IPv6 host needs its brackets
        (b"localhost:8080:80", False),
        (b"localhost evil", False),
        (b"\xff\xfe", False),
    ],
)
def test_which_hosts_pass(host: bytes, allowed: bool) -> None:
    assert passes([(b"host", host)]) is allowed


@pytest.mark.parametrize(
    ("site", "allowed"),
    [
        (b"cross-site", False),  # a page of another site: a link, a form, a fetch, a frame
        (b"Cross-Site", False),
        (b" cross-site ", False),
        (b"same-origin", True),  # the inspector's own pages and forms
        (b"same-site", True),  # another port of the same loopback host, as Origin allows
        (b"none", True),  # an address typed, a bookmark: the person, not a page
        (b"", True),  # no browser sends these: they come from scripts, which pass anyway
        (b"cross-site-ish", True),
    ],
)
def test_which_fetch_sites_pass(site: bytes, allowed: bool) -> None:
    """`Sec-Fetch-Site` is set by the browser alone (no page can set a `Sec-` header): what
    it says about the page that sent the request is refused like a foreign `Origin`."""
    assert passes([(b"sec-fetch-site", site)]) is allowed
    loopback = [(b"origin", b"http://localhost:8080"), (b"host", b"127.0.0.1:8080")]
    assert passes([*loopback, (b"sec-fetch-site", site)]) is allowed


def test_a_request_without_origin_or_host_passes() -> None:
    assert passes([(b"user-agent", b"curl/8")])
    assert passes([], server=None)


def test_every_origin_and_host_line_counts() -> None:
    assert not passes([(b"origin", b"http://localhost"), (b"origin", b"https://evil.example")])
    assert not passes([(b"host", b"localhost"), (b"host", b"evil.example")])
    assert not passes([(b"host", b"localhost"), (b"origin", b"null")])


def test_the_servers_own_address_passes() -> None:
    """In-process clients (httpx's ASGITransport) report their base URL's host as the server:
    no DNS, so no rebinding; over a socket the server is the bound address."""
    in_process = ("mock", None)
    assert passes([(b"host", b"mock"), (b"origin", b"http://mock")], server=in_process)
    assert passes([(b"host", b"MOCK:80")], server=("mock", 80))
    assert not passes([(b"host", b"evil.example")], server=in_process)
    assert not passes([(b"origin", b"http://evil.example")], server=in_process)
    assert not passes([(b"host", b"mock")], server=None)
    assert not passes([(b"host", b"mock")], server=("", None))
    assert passes([(b"host", b"[::1]:8080")], server=("::1", 8080))


def test_the_engine_refuses_before_the_endpoint_runs() -> None:
    """Through the public Python API: a foreign Origin gets the envelope, the reset never ran."""

    async def run() -> tuple[int, int, int]:
        sandbox = Sandbox.build(Settings(clock_mode="frozen"))
        await sandbox.control.advance(60)
        foreign = Request("POST", "/_mock/reset", headers=[("Origin", "https://evil.example")])
        refused = await sandbox.handle(foreign)
        still = sandbox.control.clock()[0]
        plain = await sandbox.handle(Request("POST", "/_mock/reset"))
        return refused.status, still - sandbox.control.clock()[0], plain.status

    status, moved, plain = asyncio.run(run())
    assert (status, moved, plain) == (403, 60, 200)
