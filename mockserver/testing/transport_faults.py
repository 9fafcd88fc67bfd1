"""A scenario's transport fault, acted out in-process: the httpx errors a socket would give.

Over a socket the mock's server breaks the connection (`TransportFaults` in
`web/middleware/scenarios.py`) and httpx reports what it read. In-process there is no socket,
so the plugin's transport raises the same errors itself, with the same messages, on the same
calls:

- reset: `httpx.ReadError` ("connection reset by peer") from the request;
- stall: `httpx.ReadTimeout` after the client's read timeout when that is shorter than the
  stall, else the reset's error after the stall;
- drop_after_commit: `httpx.RemoteProtocolError` ("server disconnected without sending a
  response") from the request;
- truncate: the response (status, headers) arrives; reading its body gives the first half,
  then `httpx.RemoteProtocolError` (the body ended early);
- slow_body: the body arrives at the rule's rate, in pieces about every 50 ms; a gap longer
  than the read timeout is `httpx.ReadTimeout`, as a socket's would be.

Times are wall time, as a client's timeouts are.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx

from mockserver.engine.request import Response

RESET = "[Errno 104] Connection reset by peer"
NO_RESPONSE = "Server disconnected without sending a response."


def act_out(response: Response, request: httpx.Request) -> httpx.Response:
    """The httpx response, or the httpx error, of `response` broken by its fault."""
    fault = response.fault
    assert fault is not None
    read_timeout = _read_timeout(request)
    if fault.kind == "reset":
        raise httpx.ReadError(RESET, request=request)
    if fault.kind == "drop_after_commit":
        raise httpx.RemoteProtocolError(NO_RESPONSE, request=request)
    if fault.kind == "stall":
        stall = fault.stall_ms / 1000
        if read_timeout is not None and read_timeout < stall:
            time.sleep(read_timeout)
            raise httpx.ReadTimeout("timed out", request=request)
        time.sleep(stall)
        raise httpx.ReadError(RESET, request=request)
    headers = [(name, value) for name, value in response.headers]
    body = response.body
    if fault.kind == "truncate":
        stream: httpx.SyncByteStream = _Truncated(body, request)
    else:
        stream = _Slow(body, fault.pace(), read_timeout, request)
    return httpx.Response(response.status, headers=headers, stream=stream, request=request)


def _read_timeout(request: httpx.Request) -> float | None:
    timeout = request.extensions.get("timeout") or {}
    value = timeout.get("read")
    return None if value is None else float(value)


class _Truncated(httpx.SyncByteStream):
    """The first half of a body, then the error of a connection closed before its end."""

    def __init__(self, body: bytes, request: httpx.Request) -> None:
        self.body = body
        self.request = request

    def __iter__(self) -> Iterator[bytes]:
        cut = len(self.body) // 2
        if cut:
            yield self.body[:cut]
        if self.body:
            detail = f"(received {cut} bytes, expected {len(self.body)})"
        else:
            detail = ": incomplete chunked read"
        sep = " " if self.body else ""
        raise httpx.RemoteProtocolError(
            f"peer closed connection without sending complete message body{sep}{detail}",
            request=self.request,
        )


class _Slow(httpx.SyncByteStream):
    """A body given out at `pace` (bytes a piece, seconds between pieces: as the server sends
    it, `TransportFault.pace`); a wait past the read timeout fails."""

    def __init__(
        self,
        body: bytes,
        pace: tuple[int, float],
        read_timeout: float | None,
        request: httpx.Request,
    ) -> None:
        self.body = body
        self.pace = pace
        self.read_timeout = read_timeout
        self.request = request

    def __iter__(self) -> Iterator[bytes]:
        piece, interval = self.pace
        if self.read_timeout is not None and interval > self.read_timeout and self.body:
            time.sleep(self.read_timeout)
            raise httpx.ReadTimeout("timed out", request=self.request)
        due = time.monotonic()
        for start in range(0, len(self.body), piece):
            due += interval
            left = due - time.monotonic()
            if left > 0:
                time.sleep(left)
            yield self.body[start : start + piece]
