"""`mockserver record`: a recording proxy, as a plain ASGI app.

Every request is forwarded to the upstream with its path and query (`/v1`, `/us/v1`, `/eu/v1`
and any other path alike) and every header but the hop-by-hop ones and `Host`; bodies stream
both ways, chunk by chunk, so the client receives the upstream's status, headers and body
bytes unchanged (a gzip body stays gzip). Each exchange is then appended to the recording,
redacted (`recording.entry`), one line per exchange. An upstream that cannot be reached is a
502 `api_error` envelope to the client, and recorded too.

The proxy is not the mock: `at` and `duration_ms` are the wall clock, on purpose.
"""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Final

import httpx

from mockserver.fidelity import recording
from mockserver.fidelity.recording import BODY_KEPT, Half
from mockserver.serving.asgi import Receive, Scope, Send

HOP_BY_HOP: Final = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
    }
)
UPSTREAM_TIMEOUT: Final = 60.0  # seconds to connect, and between bytes of an answer
_ID_CHARS: Final = string.ascii_letters + string.digits


class RecordingProxy:
    """Forwards every HTTP request to `upstream` and appends each exchange to `out`."""

    def __init__(
        self,
        upstream: str,
        out: IO[bytes],
        *,
        timeout: float = UPSTREAM_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """`transport` reaches the upstream another way than the network (tests wire an app
        in-process with it)."""
        self.upstream = httpx.URL(upstream.rstrip("/"))
        self.out = out
        self.timeout = timeout
        self.transport = transport
        self._client: httpx.AsyncClient | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._exchange(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def aclose(self) -> None:
        """Close the connections to the upstream."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=self.timeout, follow_redirects=False, transport=self.transport
            )
        return self._client

    async def _exchange(self, scope: Scope, receive: Receive, send: Send) -> None:
        started, at = time.perf_counter(), _now()
        raw_headers: list[tuple[bytes, bytes]] = [tuple(pair) for pair in scope["headers"]]
        sent_body = Half(raw_headers, b"", 0)
        kept = bytearray()
        read_all = False

        async def body() -> AsyncIterator[bytes]:
            nonlocal read_all
            while not read_all:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                read_all = not message.get("more_body", False)
                sent_body.body_size += len(chunk)
                if len(kept) < BODY_KEPT:
                    kept.extend(chunk[: BODY_KEPT - len(kept)])
                if chunk:
                    yield chunk

        request = self._request(scope, raw_headers, body())
        try:
            status, answered, last = await self._forward(request, send)
        except httpx.TransportError as error:  # nothing was sent to the client yet
            if _has_body(raw_headers) and not read_all:
                async for _ in body():  # not sent upstream: read now, for the file
                    pass
            status, answered = self._unreachable(error)
            last = answered.body
            await send({"type": "http.response.start", "status": 502, "headers": answered.headers})
        sent_body.body = bytes(kept)
        exchange = recording.entry(
            at=at,
            method=scope["method"],
            path=scope["path"],
            query_string=scope.get("query_string", b""),
            request=sent_body,
            status=status,
            response=answered,
            duration_ms=(time.perf_counter() - started) * 1000,
        )
        self.out.write(recording.line(exchange))
        self.out.flush()
        # The answer ends only once it is in the file: a client that has it can read it there.
        await send({"type": "http.response.body", "body": last, "more_body": False})

    def _request(
        self, scope: Scope, raw_headers: list[tuple[bytes, bytes]], body: AsyncIterator[bytes]
    ) -> httpx.Request:
        """The upstream request: the client's headers (but hop-by-hop ones and Host), its
        path and query under the upstream's base, and its body as a stream if it has one."""
        dropped = HOP_BY_HOP | _named_in_connection(raw_headers) | {b"host"}
        headers = [(name, value) for name, value in raw_headers if name.lower() not in dropped]
        path = scope.get("raw_path") or scope["path"].encode()
        url = self.upstream.copy_with(
            raw_path=self.upstream.raw_path.rstrip(b"/")
            + path.split(b"?")[0]
            + (b"?" + scope["query_string"] if scope.get("query_string") else b"")
        )
        request = self._http().build_request(
            scope["method"], url, headers=headers, content=body if _has_body(raw_headers) else None
        )
        # httpx adds defaults of its own (Accept, User-Agent, ...): the upstream sees only the
        # client's headers.
        given = {name.lower() for name, _ in headers}
        for name in list(request.headers.keys()):
            if name.encode() not in given and name not in (
                "host",
                "content-length",
                "transfer-encoding",
            ):
                del request.headers[name]
        return request

    async def _forward(self, request: httpx.Request, send: Send) -> tuple[int, Half, bytes]:
        """Send `request` upstream and stream its answer to the client but its last chunk;
        the status, the answer as seen and that last chunk, for the caller to send once the
        exchange is recorded. httpx.TransportError, before anything is sent, when the
        upstream cannot be reached."""
        response = await self._http().send(request, stream=True)  # TransportError: unreachable
        answer = Half(
            [(n, v) for n, v in response.headers.raw if n.lower() not in HOP_BY_HOP], b"", 0
        )
        kept = bytearray()
        await send(
            {
                "type": "http.response.start",
                "status": response.status_code,
                "headers": answer.headers,
            }
        )
        held = b""  # each chunk goes on when the next one comes: the last waits for the file
        try:
            async for chunk in response.aiter_raw():
                answer.body_size += len(chunk)
                if len(kept) < BODY_KEPT:
                    kept.extend(chunk[: BODY_KEPT - len(kept)])
                if held:
                    await send({"type": "http.response.body", "body": held, "more_body": True})
                held = chunk
        except httpx.TransportError:
            pass  # the upstream broke off: the client gets what came, and so does the file
        finally:
            await response.aclose()
        answer.body = bytes(kept)
        return response.status_code, answer, held

    def _unreachable(self, error: Exception) -> tuple[int, Half]:
        """The 502 `api_error` answer (head and body) for an upstream that did not answer."""
        request_id = "req_" + "".join(secrets.choice(_ID_CHARS) for _ in range(24))
        reason = str(error) or type(error).__name__
        message = f"The upstream {self.upstream} could not be reached: {reason}"
        error_body = {"error": {"type": "api_error", "message": message, "request_id": request_id}}
        body = recording.line(error_body).rstrip(b"\n")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"x-request-id", request_id.encode()),
        ]
        return 502, Half(headers, body, len(body))


def _has_body(raw_headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether the client's request announces a body (a GET without one is sent without)."""
    for name, value in raw_headers:
        lowered = name.lower()
        if lowered == b"transfer-encoding" or (lowered == b"content-length" and value != b"0"):
            return True
    return False


def _named_in_connection(raw_headers: list[tuple[bytes, bytes]]) -> set[bytes]:
    """Headers the client's `Connection` header names: hop-by-hop too (RFC 9110 7.6.1)."""
    named: set[bytes] = set()
    for name, value in raw_headers:
        if name.lower() == b"connection":
            named.update(part.strip().lower() for part in value.split(b","))
    return named


def _now() -> str:
    """When an exchange with the upstream happened: the recording's `at` is real time, since
    the upstream is a real service (the mock's clock plays no part in a recording)."""
    now = datetime.now(UTC)  # wall-clock ok
    return now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def open_recording(path: Path) -> IO[bytes]:
    """The recording file, opened to append (created if missing); OSError if it cannot be."""
    return path.open("ab")
