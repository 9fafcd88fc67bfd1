"""The webhook backlog figure: a 24 h clock advance with 1,000 pending deliveries that fail.

Against a running server (frozen clock): endpoints are registered for `document.created`,
pointing at a loopback receiver that fails, documents are created until 1,000 deliveries are
pending, the first attempts already made are let finish (`/_mock/webhooks/wait`), and then
`POST /_mock/clock/advance {"seconds": 86400}` is timed: the call awaits every attempt that falls
due in those 24 h.

Receivers that fail:

- `500`: a loopback HTTP server (an asyncio protocol in a thread of the harness) that reads
  each request and answers `500` at once, closing the connection: a receiver whose handler
  crashes. The main figure.
- `refused`: a loopback port bound but not listening, so every connection is refused: a
  receiver that is down.

Layouts of the 1,000 deliveries (deliveries to one endpoint are ordered: only the head of each
endpoint's queue is attempted, the others wait behind it):

- `endpoints16`: the 16 endpoints one account and environment may have, 62 or 63 deliveries
  each. The main figure: 16 heads; the advance makes the 29 retries of each (its first attempt
  was made when its event was written) and, at the 24 h mark, once it has failed, the first
  attempt of the delivery behind it: 480 attempts.
- `endpoint1`: one endpoint, 1,000 deliveries queued: 1 head, 30 attempts.
- `heads1000`: 1,000 endpoints (16 in each of 63 accounts: the seeded sandbox and fresh ones
  from `/_mock/accounts`), one delivery each: 1,000 heads, 29,000 attempts. Not a target
  layout: it shows what bounds the figure, real HTTP attempts at a fraction of a millisecond of
  CPU each.

All deliveries are made at the same second of the frozen clock, so their retries fall due
together. Each figure is the wall-clock time of the advance call, in the harness.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .servers import HOST, KEY, Http, Server

DELIVERIES = 1_000
DAY = 86_400
ENDPOINTS_MAX = 16  # per account and environment (mockserver.webhooks.endpoints.ENDPOINTS_MAX)
VAULT = "vault_mock_us"
LAYOUTS = ("endpoints16", "endpoint1", "heads1000")
RECEIVERS = ("500", "refused")
# Seconds the harness waits for the advance: the 29,000 attempts of `heads1000` took 28 s on a
# fast machine and over a minute on a machine a third as fast.
ADVANCE_TIMEOUT = 900.0
_ANSWER = b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class _Fail500(asyncio.Protocol):
    """Reads one request (headers, then Content-Length bytes of body), answers 500, closes."""

    def __init__(self, counter: list[int]) -> None:
        self.counter = counter
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        head, found, body = self.buffer.partition(b"\r\n\r\n")
        if not found:
            return
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if len(body) >= length and self.transport is not None:
            self.counter[0] += 1
            self.transport.write(_ANSWER)
            self.transport.close()
            self.transport = None


class FailingReceiver:
    """A loopback receiver answering 500 to every request, on its own event loop thread."""

    def __init__(self) -> None:
        self.counter = [0]
        self.loop = asyncio.new_event_loop()
        self.sock = socket.socket()
        self.sock.bind((HOST, 0))
        self.port: int = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.ready = threading.Event()
        self.server: asyncio.Server | None = None

    @property
    def received(self) -> int:
        return self.counter[0]

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            self.loop.create_server(lambda: _Fail500(self.counter), sock=self.sock, backlog=1024)
        )
        self.ready.set()
        self.loop.run_forever()
        self.server.close()
        self.loop.run_until_complete(self.server.wait_closed())
        self.loop.close()

    def start(self) -> FailingReceiver:
        self.thread.start()
        self.ready.wait(10)
        return self

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@contextmanager
def receiver(kind: str) -> Iterator[tuple[str, FailingReceiver | None]]:
    """(URL, receiver or None) of a failing receiver of `kind`, for the block."""
    if kind == "500":
        fail = FailingReceiver().start()
        try:
            yield f"http://{HOST}:{fail.port}/hooks", fail
        finally:
            fail.stop()
    elif kind == "refused":
        with socket.socket() as sock:  # bound, never listening: every connect is refused
            sock.bind((HOST, 0))
            yield f"http://{HOST}:{sock.getsockname()[1]}/hooks", None
    else:
        raise ValueError(f"unknown receiver {kind!r}")


@dataclass(frozen=True)
class Backlog:
    layout: str
    receiver: str
    deliveries: int  # pending before the advance
    heads: int  # endpoints with deliveries (only their heads are attempted)
    advance_ms: float
    attempts: int  # attempts the advance made (from the journal)
    received: int | None  # requests the 500 receiver answered during the advance
    failed: int  # deliveries `failed` after the advance
    pending: int  # deliveries still pending after it


def plan(layout: str, deliveries: int = DELIVERIES) -> list[int]:
    """Deliveries per endpoint, in groups of at most 16 endpoints (one account each)."""
    if layout == "endpoint1":
        return [deliveries]
    if layout == "endpoints16":
        per, extra = divmod(deliveries, ENDPOINTS_MAX)
        return [per + (1 if i < extra else 0) for i in range(min(deliveries, ENDPOINTS_MAX))]
    if layout == "heads1000":
        return [1] * deliveries
    raise ValueError(f"unknown layout {layout!r}")


def _fill(server: Server, url: str, per_endpoint: list[int]) -> None:
    """Endpoints and documents so that endpoint i has per_endpoint[i] deliveries queued: 16
    endpoints per account and environment, the seeded sandbox's first, then fresh accounts'."""
    keys = [KEY]
    admin = server.client()
    try:
        for _ in range(1, (len(per_endpoint) + ENDPOINTS_MAX - 1) // ENDPOINTS_MAX):
            keys.append(admin.json("POST", "/_mock/accounts", {}, 201)["keys"]["full"])
    finally:
        admin.close()
    for index, key in enumerate(keys):
        client = Http(server.port, key)
        try:
            vault = VAULT
            if key != KEY:  # a fresh account has an empty sandbox
                body = {"name": "backlog", "region": "us"}
                vault = client.json("POST", "/v1/vaults", body, 201)["id"]
            counts = per_endpoint[index * ENDPOINTS_MAX : (index + 1) * ENDPOINTS_MAX]
            _fill_account(client, url, counts, vault)
        finally:
            client.close()


def _fill_account(client: Http, url: str, counts: list[int], vault: str) -> None:
    """Endpoint i gets counts[i] `document.created` deliveries: it is registered just before
    the last counts[i] of max(counts) documents are created (an endpoint only gets the events
    written after its creation)."""
    last = max(counts)
    for n in range(last):
        for count in counts:
            if last - count == n:
                body = {"url": url, "events": ["document.created"]}
                client.json("POST", "/v1/webhook_endpoints", body, 201)
        client.json("POST", "/v1/documents", {"title": f"backlog {n}", "vault_id": vault}, 201)


def _journal(server: Server) -> list[dict[str, Any]]:
    client = server.client()
    try:
        data: list[dict[str, Any]] = client.json("GET", "/_mock/webhooks/deliveries")["data"]
        return data
    finally:
        client.close()


def measure(server: Server, layout: str, kind: str, deliveries: int = DELIVERIES) -> Backlog:
    """One backlog on a server just reset: fill it, let the first attempts finish, then time
    the 24 h advance. The server is reset again afterwards."""
    counts = plan(layout, deliveries)
    client = server.client(timeout=ADVANCE_TIMEOUT)
    try:
        client.json("POST", "/_mock/reset")
        with receiver(kind) as (url, fail):
            _fill(server, url, counts)
            client.json("POST", "/_mock/webhooks/wait", {"timeout": 60})
            before = _journal(server)
            attempts_before = sum(len(d["attempts"]) for d in before)
            received_before = fail.received if fail else 0
            started = time.monotonic()
            client.json("POST", "/_mock/clock/advance", {"seconds": DAY})
            elapsed = time.monotonic() - started
            received = fail.received - received_before if fail else None
        after = _journal(server)
        client.json("POST", "/_mock/reset")
    finally:
        client.close()
    return Backlog(
        layout=layout,
        receiver=kind,
        deliveries=sum(1 for d in before if d["status"] == "pending"),
        heads=len(counts),
        advance_ms=1000 * elapsed,
        attempts=sum(len(d["attempts"]) for d in after) - attempts_before,
        received=received,
        failed=sum(1 for d in after if d["status"] == "failed"),
        pending=sum(1 for d in after if d["status"] == "pending"),
    )
