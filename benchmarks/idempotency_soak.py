"""The idempotency soak: memory stays within the cap's budget under a stream of new keys.

Every request is `POST /v1/workflows` on a signed document with an `Idempotency-Key` never used
before: the answer is a 409 that the mock keeps for replay, and no data is stored, so whatever
memory grows is the idempotency records' and that of the other things that grow with traffic
(the request journal, first-use caches). The server runs as a load test runs it: frozen clock
(nothing expires, so only the cap bounds the records) and rate limit off. The requests go in
slices of `SLICE_SECONDS` (wrk runs for a duration; the script stops sending once the requests
asked for are sent); the server's RSS is read before the first slice and after each.

The same soak runs twice, on a server with the default cap (10,000) and on one with a cap of 1:
the difference of their RSS growth is what the kept records cost. Their budget is the cap times
the bytes one record of this answer holds, measured in-process with tracemalloc (`kept_bytes`);
the records end within it when their RSS is at most `SLACK` times the budget (the allocator's
own overhead, and the RSS's noise of about a MiB between samples). A soak is flat over its
second half when the RSS grows by at most `FLAT_MIB` from its middle sample to its end.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from dataclasses import dataclass, field, replace
from typing import Any

from . import load
from .figures import reset
from .servers import KEY, Server

DOCUMENT = "doc_mock_signed"  # a signed document: a workflow on it is a 409 conflict
REQUESTS = 200_000
SLICE_SECONDS = 2.0
CAP = 10_000  # the default cap of idempotency records
SLACK = 1.5  # RSS per tracemalloc byte the records may cost: allocator overhead, RSS noise
FLAT_MIB = 1.0
PATH = "/v1/workflows"
BODY = b'{"document_id":"' + DOCUMENT.encode() + b'","steps":[{"assignee":"soak@mock-us.example"}]}'


@dataclass
class Sample:
    """One slice: its requests and answers, and the server's RSS after it."""

    requests: int
    rps: float
    p99_ms: float
    errors: int  # transport errors and answers other than the kept 409
    rss_mib: float


@dataclass
class Soak:
    """One server's soak: its RSS before the first slice, and each slice."""

    baseline_mib: float
    samples: list[Sample] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(s.requests for s in self.samples)

    @property
    def growth_mib(self) -> float:
        return self.samples[-1].rss_mib - self.baseline_mib

    @property
    def second_half_mib(self) -> float:
        """RSS growth from the sample at the middle of the requests to the end."""
        done, middle = 0, self.baseline_mib
        for sample in self.samples:
            if done >= self.requests / 2:
                break
            done += sample.requests
            middle = sample.rss_mib
        return self.samples[-1].rss_mib - middle

    @property
    def errors(self) -> int:
        return sum(s.errors for s in self.samples)

    @property
    def rps(self) -> float:
        """The median slice's rate; the last slice stops early and counts only if alone."""
        full = self.samples[:-1] or self.samples
        return sorted(s.rps for s in full)[(len(full) - 1) // 2]


def kept_bytes(count: int = CAP, journal: int = 1) -> float:
    """Bytes one such request keeps: `count` of them through the app in-process, the memory
    tracemalloc sees them keep, divided by `count`. With a journal of 1 entry (the default),
    that is one idempotency record."""
    from mockserver.core.config import Settings
    from mockserver.web.app import create_app

    settings = Settings(clock_mode="frozen", rate_limit=False, idempotency_records=count)
    app = create_app(replace(settings, journal_size=journal))

    async def drive() -> float:
        async with app.state.sandbox.running():
            for n in range(50):  # warm-up: the world built, first-use caches filled
                await _post(app, f"warm-{n}")
            app.state.store.idempotency.clear()
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            for n in range(count):
                await _post(app, f"measure-{n}")
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            if len(app.state.store.idempotency) != count:
                raise RuntimeError("the in-process requests were not all kept")
            return (after - before) / count

    return asyncio.run(drive())


async def _post(app: Any, key: str) -> None:
    """One kept-409 POST through the ASGI app."""
    sent: list[dict[str, Any]] = []
    body = [{"type": "http.request", "body": BODY, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return body.pop() if body else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [
        (b"host", b"127.0.0.1"),
        (b"authorization", f"Bearer {KEY}".encode()),
        (b"content-type", b"application/json"),
        (b"idempotency-key", key.encode()),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": PATH,
        "raw_path": PATH.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 80),
    }
    await app(scope, receive, send)
    if sent[0]["status"] != 409:
        raise RuntimeError(f"expected a kept 409, got {sent[0]['status']}")


def soak(
    server: Server,
    requests: int = REQUESTS,
    slice_seconds: float = SLICE_SECONDS,
    run_id: str = "0",
) -> Soak:
    """Drive `requests` kept-409 POSTs with distinct keys at `server`, a slice at a time."""
    reset(server)
    url = server.url(PATH)
    warm = load.run(url, "kept_conflict.lua", [KEY, DOCUMENT, f"w{run_id}-", "200"], 1)
    if warm.unexpected or not warm.requests:
        raise RuntimeError(f"the warm-up got {warm.unexpected} answers other than 409")
    result = Soak(server.rss_kib() / 1024)
    # A slice's last answers, in flight when the script stops, go uncounted: the soak is done
    # within a connection per answer of the count.
    while result.requests < requests - load.CONNECTIONS:
        prefix = f"i{run_id}-{len(result.samples)}-"
        args = [KEY, DOCUMENT, prefix, str(requests - result.requests)]
        run = load.run(url, "kept_conflict.lua", args, slice_seconds)
        if not run.requests:
            raise RuntimeError("a slice of the idempotency soak got no answer")
        errors = run.errors - run.status_errors + run.unexpected
        sample = Sample(run.requests, run.rps, run.p99_ms, errors, server.rss_kib() / 1024)
        result.samples.append(sample)
    return result
