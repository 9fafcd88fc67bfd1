"""The HTTP side of a webhook attempt: one signed POST to a receiver, and what it found.

Every attempt opens its own connection (no keep-alive pool): a receiver's idle timeout can then
never turn into a spurious failed attempt, so a run replays the same way each time. Connection
errors, timeouts, non-2xx answers and any other error (an unusable URL, a resolver's) are all
failed attempts; redirects are not followed (a 3xx is a failure too). A hostile receiver costs
a bounded amount:

- time: one deadline (`timeout`) for the whole attempt, connect to status line, so a receiver
  that drips its answer a byte at a time cannot stretch it the way per-read timeouts would let
  it;
- bytes: only the status line and headers are read, at most `ANSWER_HEAD_MAX` (httpcore's h11
  limit; a longer head is a failed attempt) plus one socket read past them; the body is never
  read, the connection is closed as soon as the status is known, and the socket's receive
  buffer is small (`RECEIVE_BUFFER`), so a 1 GiB answer costs hardly more than an empty one.

The host is resolved and checked before connecting (`targets.py`). One `httpx.AsyncClient` per
event loop, made by its first attempt; the app's lifespan closes the serving loop's one.
"""

from __future__ import annotations

import asyncio
import socket
import weakref

import httpx

from mockserver.webhooks import targets
from mockserver.webhooks.endpoints import SIGNATURE_HEADER

USER_AGENT = "mockserver-webhooks/1"
# Bytes of a receiver's status line and headers read at most: httpcore's limit for h11 (the
# body is never read). A test holds httpcore to it.
ANSWER_HEAD_MAX = 100 * 1024
RECEIVE_BUFFER = 32 * 1024  # SO_RCVBUF of a delivery's socket (Linux doubles it)


class Sender:
    """Sends attempts with a deadline of `timeout` seconds each; `resolver` finds a host's
    addresses (a test may put its own)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.resolver: targets.Resolver = targets.system_resolver
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]
        self._clients = weakref.WeakKeyDictionary()

    def share_clients(self, other: Sender) -> None:
        """Send with `other`'s HTTP clients: one connection pool, closed with `other`'s."""
        self._clients = other._clients

    async def close(self) -> None:
        """Close the running loop's client, if an attempt made one."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            transport = httpx.AsyncHTTPTransport(
                limits=httpx.Limits(max_keepalive_connections=0),
                trust_env=False,  # receivers are reached directly, never through a proxy
                # A small, fixed receive buffer: what a receiver can push at the mock before
                # the attempt closes the connection (the body it never reads) stays small.
                socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)],
            )
            client = httpx.AsyncClient(
                transport=transport,
                timeout=httpx.Timeout(self.timeout),
                follow_redirects=False,
                trust_env=False,
            )
            self._clients[loop] = client
        return client

    async def post(
        self, url: str, body: bytes, signature: str, extra: list[tuple[str, str]] | None = None
    ) -> tuple[int | None, str | None]:
        """(status code, None) for a 2xx, else (status code or None, what went wrong); `extra`:
        headers sent after the mock's own (a trace's `traceparent`). The host is resolved and
        checked first (`targets.py`): a link-local one is refused without connecting. Never
        raises but on cancellation: any error, an unusable URL included, is a failed attempt,
        so that its delivery is retried on the schedule."""
        client = self._client()
        try:
            request = client.build_request(
                "POST",
                url,
                content=body,
                headers=[
                    ("Content-Type", "application/json"),
                    (SIGNATURE_HEADER, signature),
                    ("User-Agent", USER_AGENT),
                    *(extra or ()),
                ],
            )
        except (httpx.InvalidURL, ValueError, UnicodeError) as error:
            return None, f"unusable URL: {error}"
        try:
            async with asyncio.timeout(self.timeout):
                response = await self._send_checked(client, request)
                await response.aclose()
        except targets.Refused as refusal:
            return None, f"refused: {refusal}"
        except (TimeoutError, httpx.TimeoutException):
            return None, f"timeout: no answer within {self.timeout:g} s"
        except httpx.ConnectError as error:
            return None, f"connection failed: {error or 'refused'}"
        except OSError as error:  # the host did not resolve
            return None, f"connection failed: {error}"
        except httpx.HTTPError as error:
            return None, f"{type(error).__name__}: {error or 'the connection was closed or reset'}"
        except Exception as error:  # whatever else: a failed attempt, never a dead task
            return None, f"{type(error).__name__}: {error}"
        status = response.status_code
        if 200 <= status < 300:
            return status, None
        return status, f"answered {status}, not 2xx"

    async def _send_checked(
        self, client: httpx.AsyncClient, request: httpx.Request
    ) -> httpx.Response:
        """Send `request` to the checked addresses of its host, one after the other until one
        takes the connection: the URL names the address, `Host` and TLS (SNI and the
        certificate's name) still the host."""
        url = request.url
        host = url.raw_host.decode("ascii")
        port = url.port or (443 if url.scheme == "https" else 80)
        found = await targets.addresses(host, port, self.resolver)
        if found == [host]:  # an address already: nothing was looked up
            return await client.send(request, stream=True)
        failed: httpx.ConnectError | None = None
        for address in found:
            pinned = httpx.Request(
                request.method,
                url.copy_with(host=address),
                headers=request.headers,
                content=request.content,
                extensions={**request.extensions, "sni_hostname": host},
            )
            try:
                return await client.send(pinned, stream=True)
            except httpx.ConnectError as error:
                failed = error
        assert failed is not None
        raise failed
